fn cpu() -> f64 { let mut t = [0i64; 2]; unsafe { clock_gettime(3, t.as_mut_ptr()) }; t[0] as f64 + t[1] as f64 * 1e-9 }
extern "C" { fn clock_gettime(clk: i32, t: *mut i64) -> i32; }
fn main() {
    for v in 0..3 {
        let chk = rb::rb_run(v);
        let mut ts: Vec<f64> = (0..31).map(|_| { let c = cpu(); std::hint::black_box(rb::rb_run(std::hint::black_box(v))); (cpu() - c) * 1e3 }).collect();
        ts.sort_by(f64::total_cmp);
        println!("native v{v}: min {:.3} med {:.3} ms chk {chk}", ts[0], ts[15]);
    }
}
