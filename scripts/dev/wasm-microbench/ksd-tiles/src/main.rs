fn main() {
    let tr = kb::data();
    let reps: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(15);
    let vs: Vec<u32> = std::env::args().nth(2).unwrap_or("0,1,2,3,4,5,6".into()).split(',').map(|x| x.parse().unwrap()).collect();
    for v in vs {
        let chk = kb::run(&tr, v, true);
        let mut ts = Vec::new();
        for _ in 0..reps {
            let c0 = cpu();
            std::hint::black_box(kb::run(std::hint::black_box(&tr), v, false));
            ts.push((cpu() - c0) * 1e3);
        }
        ts.sort_by(f64::total_cmp);
        println!("native v{v}: min {:.3} med {:.3} ms chk {:016x}", ts[0], ts[reps / 2], chk.to_bits());
    }
}

fn cpu() -> f64 {
    let mut t = libc_timespec { s: 0, ns: 0 };
    unsafe { clock_gettime(3, &mut t) }; // CLOCK_THREAD_CPUTIME_ID
    t.s as f64 + t.ns as f64 * 1e-9
}
#[repr(C)] struct libc_timespec { s: i64, ns: i64 }
extern "C" { fn clock_gettime(clk: i32, t: *mut libc_timespec) -> i32; }
