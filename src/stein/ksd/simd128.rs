//! The KSD pair loop's coordinate sums for WebAssembly builds with simd128 (the page's): see
//! [`super::tile_sums`] for what is summed and why the order fixes the bits.

use super::{Tile, Transposed, CH, R};

#[inline(always)]
pub(super) fn tile_sums_simd128(
    tile: &mut Tile,
    tr: &Transposed,
    d: usize,
    j0: usize,
    xik: &[[f64; R]],
    sik: &[[f64; R]],
) {
    use core::arch::wasm32::{f64x2_add, f64x2_mul, f64x2_splat, f64x2_sub, v128, v128_load, v128_store};
    /// Rows per register block.
    const G: usize = 2;
    const _: () = assert!(R.is_multiple_of(G));
    let np = tr.np;
    // Every load below is inside these bounds: k < d, c0 + 2 <= j0 + CH <= np.
    assert!(j0 + CH <= np && tr.xt.len() >= d * np && tr.st.len() >= d * np && xik.len() >= d && sik.len() >= d);
    let (xp, sp) = (tr.xt.as_ptr(), tr.st.as_ptr());
    for r0 in (0..R).step_by(G) {
        for g in 0..CH / 2 {
            let c0 = j0 + 2 * g;
            let z = f64x2_splat(0.0);
            let (mut r2, mut t, mut ss) = ([z; G], [z; G], [z; G]);
            for k in 0..d {
                // SAFETY: in bounds by the assertion above; v128_load / v128_store allow unaligned addresses.
                let (xj, sj) = unsafe {
                    (v128_load(xp.add(k * np + c0) as *const v128), v128_load(sp.add(k * np + c0) as *const v128))
                };
                // SAFETY: k < d <= xik.len(), sik.len().
                let (xi, si) = unsafe { (xik.get_unchecked(k), sik.get_unchecked(k)) };
                for r in 0..G {
                    let (xr, sr) = (f64x2_splat(xi[r0 + r]), f64x2_splat(si[r0 + r]));
                    let u = f64x2_sub(xr, xj);
                    r2[r] = f64x2_add(r2[r], f64x2_mul(u, u));
                    t[r] = f64x2_add(t[r], f64x2_mul(f64x2_sub(sr, sj), u));
                    ss[r] = f64x2_add(ss[r], f64x2_mul(sr, sj));
                }
            }
            for r in 0..G {
                let o = 2 * g;
                // SAFETY: o + 2 <= CH, the length of each tile row.
                unsafe {
                    v128_store(tile.r2[r0 + r].as_mut_ptr().add(o) as *mut v128, r2[r]);
                    v128_store(tile.t[r0 + r].as_mut_ptr().add(o) as *mut v128, t[r]);
                    v128_store(tile.ss[r0 + r].as_mut_ptr().add(o) as *mut v128, ss[r]);
                }
            }
        }
    }
}
