//! Microbenchmark of the KSD coordinate sums (a copy of `tile_sums` in tunelab's src/stein/ksd.rs) in several
//! blockings (scripts/dev/wasm-microbench/run.sh). `kb_run(variant, full)`: every tile of the pair loop for n = 1,000,
//! d = 10; `full = 1` returns a checksum over every tile value (the same for the same R: each pair's sums in the same
//! order; variants with another R visit other tiles, so their checksums differ by construction).
//! Variants: portable Rust: 0 = R 4 rows x L 2 columns (the wasm code before issue 26), 1 = 4 x 4 (the native
//! code), 2 = 2 x 4, 3 = coordinates outer (sums accumulated in the tile), 4 = 2 x 2, 5 = 3 x 4, 6 = coordinates
//! outer with R = 8, 7 / 8 = R = 4 in groups of 2 rows x 2 / 4 columns. simd128 intrinsics (wasm only): 10 = 4 rows x
//! 1 vector (2 columns), 11 = 4 x 2 vectors, 12 = 2 x 2, 13 = 3 x 2, 14 = 2 x 4, 15-18 = 5, 6, 3, 8 rows x 1,
//! 30 = R = 4 in groups of 2 rows x 2 vectors, 31 = groups of 2 rows x 1 vector (the kernel shipped in
//! src/stein/ksd.rs), 32 = 1 row x 2 vectors, 33 = 1 x 4, 34 = coordinates outer, 35 = 4 x 1 as 10,
//! 36 = 31 with pre-splatted row values, 37 = 31, 38 = 1 x 1; 20-22 = relaxed-simd madd (build with
//! +relaxed-simd, run node with --experimental-wasm-relaxed-simd).
const CH: usize = 64;
pub const N: usize = 1000;
pub const D: usize = 10;

pub struct Tr { pub xt: Vec<f64>, pub st: Vec<f64>, pub np: usize }

pub fn data() -> Tr {
    let np = N.div_ceil(CH) * CH + CH;
    let mut xt = vec![0.0; D * np];
    let mut st = vec![0.0; D * np];
    let mut z: u64 = 12345;
    for i in 0..N { for k in 0..D {
        z = z.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let v = ((z >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 2.0;
        xt[k * np + i] = v; st[k * np + i] = -v * 0.7 + 0.1;
    }}
    Tr { xt, st, np }
}

pub struct Tile<const R: usize> { pub r2: [[f64; CH]; R], pub t: [[f64; CH]; R], pub ss: [[f64; CH]; R] }

#[inline(always)]
fn tile_generic<const R: usize, const L: usize>(tile: &mut Tile<R>, tr: &Tr, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    let np = tr.np;
    for g in 0..CH / L {
        let mut r2 = [[0.0; L]; R];
        let mut t = [[0.0; L]; R];
        let mut ss = [[0.0; L]; R];
        let c0 = j0 + g * L;
        for k in 0..d {
            let xj: &[f64; L] = tr.xt[k * np + c0..k * np + c0 + L].try_into().unwrap();
            let sj: &[f64; L] = tr.st[k * np + c0..k * np + c0 + L].try_into().unwrap();
            let (xi, si) = (&xik[k], &sik[k]);
            for r in 0..R { for l in 0..L {
                let u = xi[r] - xj[l];
                r2[r][l] += u * u;
                t[r][l] += (si[r] - sj[l]) * u;
                ss[r][l] += si[r] * sj[l];
            }}
        }
        for r in 0..R {
            tile.r2[r][g * L..g * L + L].copy_from_slice(&r2[r]);
            tile.t[r][g * L..g * L + L].copy_from_slice(&t[r]);
            tile.ss[r][g * L..g * L + L].copy_from_slice(&ss[r]);
        }
    }
}

/// Portable: rows in groups of G, L columns per block (the simd128 kernel's blocking in plain Rust).
#[inline(always)]
fn tile_generic_groups<const R: usize, const G: usize, const L: usize>(tile: &mut Tile<R>, tr: &Tr, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    let np = tr.np;
    for r0 in (0..R).step_by(G) {
    for g in 0..CH / L {
        let mut r2 = [[0.0; L]; G];
        let mut t = [[0.0; L]; G];
        let mut ss = [[0.0; L]; G];
        let c0 = j0 + g * L;
        for k in 0..d {
            let xj: &[f64; L] = tr.xt[k * np + c0..k * np + c0 + L].try_into().unwrap();
            let sj: &[f64; L] = tr.st[k * np + c0..k * np + c0 + L].try_into().unwrap();
            let (xi, si) = (&xik[k], &sik[k]);
            for r in 0..G { for l in 0..L {
                let u = xi[r0 + r] - xj[l];
                r2[r][l] += u * u;
                t[r][l] += (si[r0 + r] - sj[l]) * u;
                ss[r][l] += si[r0 + r] * sj[l];
            }}
        }
        for r in 0..G {
            tile.r2[r0 + r][g * L..g * L + L].copy_from_slice(&r2[r]);
            tile.t[r0 + r][g * L..g * L + L].copy_from_slice(&t[r]);
            tile.ss[r0 + r][g * L..g * L + L].copy_from_slice(&ss[r]);
        }
    }
    }
}

/// k outer: accumulate in the tile's memory (same per-pair order over k).
#[inline(always)]
fn tile_kouter<const R: usize>(tile: &mut Tile<R>, tr: &Tr, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    let np = tr.np;
    for r in 0..R { tile.r2[r] = [0.0; CH]; tile.t[r] = [0.0; CH]; tile.ss[r] = [0.0; CH]; }
    for k in 0..d {
        let xj: &[f64; CH] = tr.xt[k * np + j0..k * np + j0 + CH].try_into().unwrap();
        let sj: &[f64; CH] = tr.st[k * np + j0..k * np + j0 + CH].try_into().unwrap();
        for r in 0..R {
            let (xi, si) = (xik[k][r], sik[k][r]);
            let (r2, t, ss) = (&mut tile.r2[r], &mut tile.t[r], &mut tile.ss[r]);
            for j in 0..CH {
                let u = xi - xj[j];
                r2[j] += u * u;
                t[j] += (si - sj[j]) * u;
                ss[j] += si * sj[j];
            }
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn tile_v128<const R: usize, const V: usize>(tile: &mut Tile<R>, tr: &Tr, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    use core::arch::wasm32::*;
    let np = tr.np;
    assert!(j0 + CH <= np && tr.xt.len() >= d * np && tr.st.len() >= d * np && xik.len() >= d && sik.len() >= d);
    let xp = tr.xt.as_ptr();
    let sp = tr.st.as_ptr();
    for g in 0..CH / (2 * V) {
        let z = f64x2_splat(0.0);
        let mut r2 = [[z; V]; R];
        let mut t = [[z; V]; R];
        let mut ss = [[z; V]; R];
        let c0 = j0 + g * 2 * V;
        for k in 0..d {
            let mut xj = [z; V];
            let mut sj = [z; V];
            for v in 0..V {
                // SAFETY: k < d, c0 + 2V <= j0 + CH <= np (asserted above).
                unsafe {
                    xj[v] = v128_load(xp.add(k * np + c0 + 2 * v) as *const v128);
                    sj[v] = v128_load(sp.add(k * np + c0 + 2 * v) as *const v128);
                }
            }
            let (xi, si) = unsafe { (xik.get_unchecked(k), sik.get_unchecked(k)) };
            for r in 0..R {
                let xr = f64x2_splat(xi[r]);
                let sr = f64x2_splat(si[r]);
                for v in 0..V {
                    let u = f64x2_sub(xr, xj[v]);
                    r2[r][v] = f64x2_add(r2[r][v], f64x2_mul(u, u));
                    t[r][v] = f64x2_add(t[r][v], f64x2_mul(f64x2_sub(sr, sj[v]), u));
                    ss[r][v] = f64x2_add(ss[r][v], f64x2_mul(sr, sj[v]));
                }
            }
        }
        for r in 0..R { for v in 0..V {
            let o = g * 2 * V + 2 * v;
            unsafe {
                v128_store(tile.r2[r].as_mut_ptr().add(o) as *mut v128, r2[r][v]);
                v128_store(tile.t[r].as_mut_ptr().add(o) as *mut v128, t[r][v]);
                v128_store(tile.ss[r].as_mut_ptr().add(o) as *mut v128, ss[r][v]);
            }
        }}
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
#[allow(dead_code)]
fn tile_v128_relaxed<const R: usize, const V: usize>(tile: &mut Tile<R>, tr: &Tr, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    use core::arch::wasm32::*;
    let np = tr.np;
    assert!(j0 + CH <= np && tr.xt.len() >= d * np && tr.st.len() >= d * np && xik.len() >= d && sik.len() >= d);
    let xp = tr.xt.as_ptr();
    let sp = tr.st.as_ptr();
    for g in 0..CH / (2 * V) {
        let z = f64x2_splat(0.0);
        let mut r2 = [[z; V]; R];
        let mut t = [[z; V]; R];
        let mut ss = [[z; V]; R];
        let c0 = j0 + g * 2 * V;
        for k in 0..d {
            let mut xj = [z; V];
            let mut sj = [z; V];
            for v in 0..V { unsafe {
                xj[v] = v128_load(xp.add(k * np + c0 + 2 * v) as *const v128);
                sj[v] = v128_load(sp.add(k * np + c0 + 2 * v) as *const v128);
            }}
            let (xi, si) = unsafe { (xik.get_unchecked(k), sik.get_unchecked(k)) };
            for r in 0..R {
                let xr = f64x2_splat(xi[r]);
                let sr = f64x2_splat(si[r]);
                for v in 0..V {
                    let u = f64x2_sub(xr, xj[v]);
                    r2[r][v] = f64x2_relaxed_madd(u, u, r2[r][v]);
                    t[r][v] = f64x2_relaxed_madd(f64x2_sub(sr, sj[v]), u, t[r][v]);
                    ss[r][v] = f64x2_relaxed_madd(sr, sj[v], ss[r][v]);
                }
            }
        }
        for r in 0..R { for v in 0..V {
            let o = g * 2 * V + 2 * v;
            unsafe {
                v128_store(tile.r2[r].as_mut_ptr().add(o) as *mut v128, r2[r][v]);
                v128_store(tile.t[r].as_mut_ptr().add(o) as *mut v128, t[r][v]);
                v128_store(tile.ss[r].as_mut_ptr().add(o) as *mut v128, ss[r][v]);
            }
        }}
    }
}


/// R-row tile computed in row groups of G rows with V simd128 vectors of columns.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn tile_v128_groups<const R: usize, const G: usize, const V: usize>(tile: &mut Tile<R>, tr: &Tr, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    use core::arch::wasm32::*;
    let np = tr.np;
    assert!(j0 + CH <= np && tr.xt.len() >= d * np && tr.st.len() >= d * np && xik.len() >= d && sik.len() >= d && R % G == 0);
    let xp = tr.xt.as_ptr();
    let sp = tr.st.as_ptr();
    for r0 in (0..R).step_by(G) {
    for g in 0..CH / (2 * V) {
        let z = f64x2_splat(0.0);
        let mut r2 = [[z; V]; G];
        let mut t = [[z; V]; G];
        let mut ss = [[z; V]; G];
        let c0 = j0 + g * 2 * V;
        for k in 0..d {
            let mut xj = [z; V];
            let mut sj = [z; V];
            for v in 0..V { unsafe {
                xj[v] = v128_load(xp.add(k * np + c0 + 2 * v) as *const v128);
                sj[v] = v128_load(sp.add(k * np + c0 + 2 * v) as *const v128);
            }}
            let (xi, si) = unsafe { (xik.get_unchecked(k), sik.get_unchecked(k)) };
            for r in 0..G {
                let xr = f64x2_splat(xi[r0 + r]);
                let sr = f64x2_splat(si[r0 + r]);
                for v in 0..V {
                    let u = f64x2_sub(xr, xj[v]);
                    r2[r][v] = f64x2_add(r2[r][v], f64x2_mul(u, u));
                    t[r][v] = f64x2_add(t[r][v], f64x2_mul(f64x2_sub(sr, sj[v]), u));
                    ss[r][v] = f64x2_add(ss[r][v], f64x2_mul(sr, sj[v]));
                }
            }
        }
        for r in 0..G { for v in 0..V {
            let o = g * 2 * V + 2 * v;
            unsafe {
                v128_store(tile.r2[r0 + r].as_mut_ptr().add(o) as *mut v128, r2[r][v]);
                v128_store(tile.t[r0 + r].as_mut_ptr().add(o) as *mut v128, t[r][v]);
                v128_store(tile.ss[r0 + r].as_mut_ptr().add(o) as *mut v128, ss[r][v]);
            }
        }}
    }
    }
}

/// R-row tile computed in row groups of G rows with V simd128 vectors of columns.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128", target_feature = "relaxed-simd"))]
#[inline(always)]
fn tile_v128_groups_relaxed<const R: usize, const G: usize, const V: usize>(tile: &mut Tile<R>, tr: &Tr, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    use core::arch::wasm32::*;
    let np = tr.np;
    assert!(j0 + CH <= np && tr.xt.len() >= d * np && tr.st.len() >= d * np && xik.len() >= d && sik.len() >= d && R % G == 0);
    let xp = tr.xt.as_ptr();
    let sp = tr.st.as_ptr();
    for r0 in (0..R).step_by(G) {
    for g in 0..CH / (2 * V) {
        let z = f64x2_splat(0.0);
        let mut r2 = [[z; V]; G];
        let mut t = [[z; V]; G];
        let mut ss = [[z; V]; G];
        let c0 = j0 + g * 2 * V;
        for k in 0..d {
            let mut xj = [z; V];
            let mut sj = [z; V];
            for v in 0..V { unsafe {
                xj[v] = v128_load(xp.add(k * np + c0 + 2 * v) as *const v128);
                sj[v] = v128_load(sp.add(k * np + c0 + 2 * v) as *const v128);
            }}
            let (xi, si) = unsafe { (xik.get_unchecked(k), sik.get_unchecked(k)) };
            for r in 0..G {
                let xr = f64x2_splat(xi[r0 + r]);
                let sr = f64x2_splat(si[r0 + r]);
                for v in 0..V {
                    let u = f64x2_sub(xr, xj[v]);
                    r2[r][v] = f64x2_relaxed_madd(u, u, r2[r][v]);
                    t[r][v] = f64x2_relaxed_madd(f64x2_sub(sr, sj[v]), u, t[r][v]);
                    ss[r][v] = f64x2_relaxed_madd(sr, sj[v], ss[r][v]);
                }
            }
        }
        for r in 0..G { for v in 0..V {
            let o = g * 2 * V + 2 * v;
            unsafe {
                v128_store(tile.r2[r0 + r].as_mut_ptr().add(o) as *mut v128, r2[r][v]);
                v128_store(tile.t[r0 + r].as_mut_ptr().add(o) as *mut v128, t[r][v]);
                v128_store(tile.ss[r0 + r].as_mut_ptr().add(o) as *mut v128, ss[r][v]);
            }
        }}
    }
    }
}

/// k outer with simd128, accumulators in the tile.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn tile_v128_kouter<const R: usize>(tile: &mut Tile<R>, tr: &Tr, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    use core::arch::wasm32::*;
    let np = tr.np;
    assert!(j0 + CH <= np && tr.xt.len() >= d * np && tr.st.len() >= d * np && xik.len() >= d && sik.len() >= d && d >= 1);
    let xp = tr.xt.as_ptr();
    let sp = tr.st.as_ptr();
    for r in 0..R {
        let (xr, sr) = (f64x2_splat(xik[0][r]), f64x2_splat(sik[0][r]));
        for j in (0..CH).step_by(2) { unsafe {
            let xj = v128_load(xp.add(j0 + j) as *const v128);
            let sj = v128_load(sp.add(j0 + j) as *const v128);
            let u = f64x2_sub(xr, xj);
            v128_store(tile.r2[r].as_mut_ptr().add(j) as *mut v128, f64x2_mul(u, u));
            v128_store(tile.t[r].as_mut_ptr().add(j) as *mut v128, f64x2_mul(f64x2_sub(sr, sj), u));
            v128_store(tile.ss[r].as_mut_ptr().add(j) as *mut v128, f64x2_mul(sr, sj));
        }}
    }
    for k in 1..d {
        for r in 0..R {
            let (xr, sr) = unsafe { (f64x2_splat(xik.get_unchecked(k)[r]), f64x2_splat(sik.get_unchecked(k)[r])) };
            for j in (0..CH).step_by(2) { unsafe {
                let xj = v128_load(xp.add(k * np + j0 + j) as *const v128);
                let sj = v128_load(sp.add(k * np + j0 + j) as *const v128);
                let u = f64x2_sub(xr, xj);
                let pr = tile.r2[r].as_mut_ptr().add(j) as *mut v128;
                let pt = tile.t[r].as_mut_ptr().add(j) as *mut v128;
                let ps = tile.ss[r].as_mut_ptr().add(j) as *mut v128;
                v128_store(pr, f64x2_add(v128_load(pr), f64x2_mul(u, u)));
                v128_store(pt, f64x2_add(v128_load(pt), f64x2_mul(f64x2_sub(sr, sj), u)));
                v128_store(ps, f64x2_add(v128_load(ps), f64x2_mul(sr, sj)));
            }}
        }
    }
}


/// As tile_v128_groups with G = 2, V = 1, rows' values pre-splatted (xs[k][r] = [x, x]).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn tile_v128_pre<const R: usize>(tile: &mut Tile<R>, tr: &Tr, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    use core::arch::wasm32::*;
    let np = tr.np;
    assert!(j0 + CH <= np && tr.xt.len() >= d * np && tr.st.len() >= d * np && xik.len() >= d && sik.len() >= d);
    // pre-splat (in the real code this is done once per row block)
    let mut pre = [[[0.0f64; 2]; 8]; 16]; assert!(R == 4);
    assert!(d <= 16); for k in 0..d { for r in 0..R { pre[k][2 * r] = [xik[k][r]; 2]; pre[k][2 * r + 1] = [sik[k][r]; 2]; } }
    let xp = tr.xt.as_ptr();
    let sp = tr.st.as_ptr();
    let pp = pre.as_ptr() as *const v128;
    for r0 in (0..R).step_by(2) {
    for g in 0..CH / 2 {
        let z = f64x2_splat(0.0);
        let (mut a0, mut b0, mut c0_, mut a1, mut b1, mut c1) = (z, z, z, z, z, z);
        let c0 = j0 + g * 2;
        for k in 0..d { unsafe {
            let xj = v128_load(xp.add(k * np + c0) as *const v128);
            let sj = v128_load(sp.add(k * np + c0) as *const v128);
            let xr = v128_load(pp.add(k * 2 * R + 2 * r0));
            let sr = v128_load(pp.add(k * 2 * R + 2 * r0 + 1));
            let u = f64x2_sub(xr, xj);
            a0 = f64x2_add(a0, f64x2_mul(u, u));
            b0 = f64x2_add(b0, f64x2_mul(f64x2_sub(sr, sj), u));
            c0_ = f64x2_add(c0_, f64x2_mul(sr, sj));
            let xr = v128_load(pp.add(k * 2 * R + 2 * r0 + 2));
            let sr = v128_load(pp.add(k * 2 * R + 2 * r0 + 3));
            let u = f64x2_sub(xr, xj);
            a1 = f64x2_add(a1, f64x2_mul(u, u));
            b1 = f64x2_add(b1, f64x2_mul(f64x2_sub(sr, sj), u));
            c1 = f64x2_add(c1, f64x2_mul(sr, sj));
        }}
        let o = g * 2;
        unsafe {
            v128_store(tile.r2[r0].as_mut_ptr().add(o) as *mut v128, a0);
            v128_store(tile.t[r0].as_mut_ptr().add(o) as *mut v128, b0);
            v128_store(tile.ss[r0].as_mut_ptr().add(o) as *mut v128, c0_);
            v128_store(tile.r2[r0 + 1].as_mut_ptr().add(o) as *mut v128, a1);
            v128_store(tile.t[r0 + 1].as_mut_ptr().add(o) as *mut v128, b1);
            v128_store(tile.ss[r0 + 1].as_mut_ptr().add(o) as *mut v128, c1);
        }
    }
    }
}

#[inline(always)]
fn run_with<const R: usize>(tr: &Tr, full: bool, f: impl Fn(&mut Tile<R>, &Tr, usize, usize, &[[f64; R]], &[[f64; R]])) -> f64 {
    let (n, d) = (N, D);
    let mut tile = Tile::<R> { r2: [[0.0; CH]; R], t: [[0.0; CH]; R], ss: [[0.0; CH]; R] };
    let mut xik = vec![[0.0; R]; d];
    let mut sik = vec![[0.0; R]; d];
    let mut total = 0.0;
    let mut ib = 0;
    while ib < n {
        let rows = (n - ib).min(R);
        for k in 0..d { for r in 0..R {
            xik[k][r] = tr.xt[k * tr.np + ib + r.min(rows - 1)];
            sik[k][r] = tr.st[k * tr.np + ib + r.min(rows - 1)];
        }}
        let mut j0 = ib + 1;
        while j0 < n {
            let len = (n - j0).min(CH);
            f(&mut tile, tr, d, j0, &xik, &sik);
            if full {
                for r in 0..rows { for j in 0..len {
                    total += tile.r2[r][j] + 3.0 * tile.t[r][j] + 7.0 * tile.ss[r][j];
                }}
            } else {
                total += tile.r2[0][0] + tile.t[R - 1][CH - 1];
            }
            j0 += len;
        }
        ib += rows;
    }
    total
}

pub fn run(tr: &Tr, variant: u32, full: bool) -> f64 {
    match variant {
        0 => run_with::<4>(tr, full, tile_generic::<4, 2>),
        1 => run_with::<4>(tr, full, tile_generic::<4, 4>),
        2 => run_with::<2>(tr, full, tile_generic::<2, 4>),
        3 => run_with::<4>(tr, full, tile_kouter::<4>),
        4 => run_with::<2>(tr, full, tile_generic::<2, 2>),
        5 => run_with::<3>(tr, full, tile_generic::<3, 4>),
        6 => run_with::<8>(tr, full, tile_kouter::<8>),
        7 => run_with::<4>(tr, full, tile_generic_groups::<4, 2, 2>),
        8 => run_with::<4>(tr, full, tile_generic_groups::<4, 2, 4>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        10 => run_with::<4>(tr, full, tile_v128::<4, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        11 => run_with::<4>(tr, full, tile_v128::<4, 2>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        12 => run_with::<2>(tr, full, tile_v128::<2, 2>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        13 => run_with::<3>(tr, full, tile_v128::<3, 2>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        14 => run_with::<2>(tr, full, tile_v128::<2, 4>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        15 => run_with::<5>(tr, full, tile_v128::<5, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        16 => run_with::<6>(tr, full, tile_v128::<6, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        17 => run_with::<3>(tr, full, tile_v128::<3, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        18 => run_with::<8>(tr, full, tile_v128::<8, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        30 => run_with::<4>(tr, full, tile_v128_groups::<4, 2, 2>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        31 => run_with::<4>(tr, full, tile_v128_groups::<4, 2, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        32 => run_with::<4>(tr, full, tile_v128_groups::<4, 1, 2>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        33 => run_with::<4>(tr, full, tile_v128_groups::<4, 1, 4>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        34 => run_with::<4>(tr, full, tile_v128_kouter::<4>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        35 => run_with::<4>(tr, full, tile_v128_groups::<4, 4, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        36 => run_with::<4>(tr, full, tile_v128_pre::<4>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        37 => run_with::<4>(tr, full, tile_v128_groups::<4, 2, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        38 => run_with::<4>(tr, full, tile_v128_groups::<4, 1, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128", target_feature = "relaxed-simd"))]
        22 => run_with::<4>(tr, full, tile_v128_groups_relaxed::<4, 2, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128", target_feature = "relaxed-simd"))]
        20 => run_with::<4>(tr, full, tile_v128_relaxed::<4, 1>),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128", target_feature = "relaxed-simd"))]
        21 => run_with::<4>(tr, full, tile_v128_relaxed::<4, 2>),
        _ => f64::NAN,
    }
}

static mut DATA: Option<Tr> = None;

#[no_mangle]
pub extern "C" fn kb_run(variant: u32, full: u32) -> f64 {
    #[allow(static_mut_refs)]
    let tr = unsafe { DATA.get_or_insert_with(data) };
    run(tr, variant, full != 0)
}
