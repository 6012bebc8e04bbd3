//! The `tunelab` binary end to end: data, sampling and Stein commands (moved from the core's tests when the
//! CLI became its own crate).

use std::sync::Arc;
use tunelab::data::*;
use tunelab::model::Target;
use tunelab::rng::stream;
use tunelab::stein::{ksd, Estimator, KernelScale, KsdOptions};
#[path = "../../../tests/common/gaussian.rs"]
mod gaussian;
use gaussian::{gaussian_samples, gaussian_scores, rel};

fn write_csv(path: &std::path::Path, m: &[f64], d: usize, header: bool) {
    let mut t = String::new();
    if header {
        t.push_str(&(1..=d).map(|k| format!("x{k}")).collect::<Vec<_>>().join(","));
        t.push('\n');
    }
    for row in m.chunks_exact(d) {
        t.push_str(&row.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(","));
        t.push('\n');
    }
    std::fs::write(path, t).unwrap();
}

fn tunelab(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tunelab")).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_ksd_and_fssd() {
    use tunelab::stein::{fssd, FssdKernel};
    let dir = std::env::temp_dir().join(format!("tunelab-stein-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (n, d) = (40, 3);
    let x = gaussian_samples(&mut stream(71, 0), n, &[0.1, 0.2, 0.3], 1.0);
    let s = gaussian_scores(&x, &[0.0; 3], 1.1);
    let v = gaussian_samples(&mut stream(71, 1), 2, &[0.0; 3], 1.0);
    let (sp, gp, vp, bad) = (dir.join("S.csv"), dir.join("G.csv"), dir.join("V.csv"), dir.join("B.csv"));
    write_csv(&sp, &x, d, true);
    write_csv(&gp, &s, d, false);
    write_csv(&vp, &v, d, false);
    write_csv(&bad, &s[..(n - 1) * d], d, false);
    let p = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let (sp, gp, vp, bad) = (p(&sp), p(&gp), p(&vp), p(&bad));

    let want = ksd(&x, &s, d, &KsdOptions::reference(1.0, -0.5)).unwrap();
    let (ok, out, _) = tunelab(&["ksd", "--samples", &sp, "--scores", &gp]);
    assert!(ok);
    assert_eq!(out.trim().parse::<f64>().unwrap(), want.ksd);
    let (ok, out, _) = tunelab(&["ksd", "--samples", &sp, "--scores", &gp, "--c", "2", "--beta", "-0.3", "--json"]);
    assert!(ok);
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let w = ksd(&x, &s, d, &KsdOptions::reference(2.0, -0.3)).unwrap();
    assert!(rel(j["ksd"].as_f64().unwrap(), w.ksd) < 1e-15 && rel(j["ksd_sq"].as_f64().unwrap(), w.ksd_sq) < 1e-15);
    assert_eq!((j["n"].as_u64().unwrap(), j["d"].as_u64().unwrap()), (n as u64, d as u64));
    let (ok, out, _) = tunelab(&["ksd", "--samples", &sp, "--scores", &gp, "--scale", "median-precond", "--json"]);
    assert!(ok);
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let w = ksd(
        &x,
        &s,
        d,
        &KsdOptions { scale: KernelScale::MedianPrecond, estimator: Estimator::V, ..Default::default() },
    )
    .unwrap();
    assert!(rel(j["ksd_sq"].as_f64().unwrap(), w.ksd_sq) < 1e-15);

    let g = fssd(&x, &s, d, &v, &FssdKernel::Gauss { sigma2: 1.5 }).unwrap();
    let (ok, out, _) =
        tunelab(&["fssd", "--samples", &sp, "--scores", &gp, "--locations", &vp, "--gauss-sigma2", "1.5"]);
    assert!(ok);
    assert_eq!(out.trim().parse::<f64>().unwrap(), g.fssd_sq);
    let m = fssd(&x, &s, d, &v, &FssdKernel::Imq { c: 1.0, beta: -0.5 }).unwrap();
    let (ok, out, _) = tunelab(&[
        "fssd",
        "--samples",
        &sp,
        "--scores",
        &gp,
        "--locations",
        &vp,
        "--imq-c",
        "1",
        "--imq-beta",
        "-0.5",
        "--json",
    ]);
    assert!(ok);
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    // (serde_json's default float parser may be 1 ulp off, hence the tolerance)
    assert!(
        rel(j["fssd_sq"].as_f64().unwrap(), m.fssd_sq) < 1e-15
            && rel(j["fssd_sq_u"].as_f64().unwrap(), m.fssd_sq_u) < 1e-15
    );

    // errors: stderr and a non-zero exit code
    let (ok, out, err) = tunelab(&["ksd", "--samples", &sp, "--scores", &bad]);
    assert!(!ok && out.is_empty() && err.contains("rows"), "{err}");
    let (ok, _, err) = tunelab(&["ksd", "--samples", &sp, "--scores", &gp, "--beta", "0.5"]);
    assert!(!ok && err.contains("beta"));
    let (ok, _, err) = tunelab(&["ksd", "--samples", "/nonexistent/S.csv", "--scores", &gp]);
    assert!(!ok && err.contains("cannot read"));
    let (ok, _, _) = tunelab(&["fssd", "--samples", &sp, "--scores", &gp, "--locations", &vp]);
    assert!(!ok);
    let (ok, _, _) = tunelab(&[
        "fssd",
        "--samples",
        &sp,
        "--scores",
        &gp,
        "--locations",
        &vp,
        "--gauss-sigma2",
        "1",
        "--imq-c",
        "1",
        "--imq-beta",
        "-0.5",
    ]);
    assert!(!ok);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn cli_simulate_writes_a_readable_seeded_file_and_fails_cleanly() {
    let exe = env!("CARGO_BIN_EXE_tunelab");
    let dir = std::env::temp_dir().join(format!("tunelab-sim-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = |name: &str| dir.join(name).to_string_lossy().to_string();
    let run = |args: &[&str]| std::process::Command::new(exe).args(args).output().unwrap();
    for (name, seed) in [("a.csv", "3"), ("b.csv", "3"), ("c.csv", "4")] {
        let o = run(&["simulate", "logistic", "--n", "50", "--d", "3", "--seed", seed, "--out", &f(name)]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let a = std::fs::read_to_string(f("a.csv")).unwrap();
    assert!(a.starts_with("x1,x2,x3,y\n"));
    assert_eq!(a, std::fs::read_to_string(f("b.csv")).unwrap());
    assert_ne!(a, std::fs::read_to_string(f("c.csv")).unwrap());
    let ds = parse_csv(&a, &CsvOptions::default()).unwrap();
    assert_eq!((ds.n, ds.p), (50, 3));
    // The file holds exactly the library's simulation with the stream (seed, 0).
    assert_eq!(ds.x, simulate_logistic(50, 3, &mut stream(3, 0)).unwrap().0.x);
    let o = run(&["simulate", "linear", "--n", "20", "--d", "2", "--out", &f("l.csv")]);
    assert!(o.status.success());
    assert_eq!(parse_csv(&std::fs::read_to_string(f("l.csv")).unwrap(), &CsvOptions::default()).unwrap().n, 20);
    let o = run(&["simulate", "logistic", "--n", "1", "--d", "3", "--out", &f("x.csv")]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("n >= 2"));
    let o = run(&["simulate", "logistic", "--n", "5", "--out", "/nonexistent/dir/x.csv"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/dir/x.csv"));
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

fn tmpdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tunelab-samplers-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn cli_sample_writes_samples_and_scores() {
    let dir = tmpdir("cli");
    let (ds, _) = tunelab::data::simulate_logistic(500, 3, &mut stream(61, 0)).unwrap();
    let data = dir.join("d.csv");
    std::fs::write(&data, ds.to_csv_string()).unwrap();
    let out = dir.join("s.csv");
    let scores = dir.join("g.csv");
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tunelab"))
            .args(["sample", "--data", data.to_str().unwrap(), "--model", "logistic", "--seed", "3"])
            .args(["--out", out.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap()
    };
    for sampler in ["sgld", "sghmc", "sgnht-cv"] {
        let o = run(&[
            "--sampler",
            sampler,
            "--step",
            "1e-3",
            "--batch",
            "50",
            "--iters",
            "100",
            "--thin",
            "10",
            "--leapfrog",
            "3",
            "--scores",
            scores.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("100 iterations, 10 kept"), "{err}");
        let text = std::fs::read_to_string(&out).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next().unwrap(), "theta1,theta2,theta3");
        let (vals, n, d) = tunelab::data::read_matrix_csv(&text).unwrap();
        assert_eq!((n, d), (10, 3));
        let (g, gn, _) = tunelab::data::read_matrix_csv(&std::fs::read_to_string(&scores).unwrap()).unwrap();
        assert_eq!(gn, 10);
        let t = tunelab::model::LogisticRegression::new(Arc::new(ds.clone()), 10.0, false).unwrap();
        let mut want = vec![0.0; 3];
        t.grad_log_density(&vals[27..30], &mut want);
        for j in 0..3 {
            assert!((g[27 + j] - want[j]).abs() <= 1e-9 * (1.0 + want[j].abs()));
        }
    }
    // Same seed, same output.
    let a = {
        run(&["--sampler", "sgld", "--step", "1e-3", "--iters", "20"]);
        std::fs::read_to_string(&out).unwrap()
    };
    let b = {
        run(&["--sampler", "sgld", "--step", "1e-3", "--iters", "20"]);
        std::fs::read_to_string(&out).unwrap()
    };
    assert_eq!(a, b);
    // Gradient budget, start at zero.
    let o = run(&["--sampler", "sgld", "--step", "1e-3", "--batch", "0.1", "--grad-evals", "1000", "--start", "zero"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("20 iterations, 20 kept, 1000 gradient evaluations"));
    // Divergence: non-zero exit, iteration in the message.
    let o = run(&["--sampler", "sgld", "--step", "1e3", "--iters", "10000"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("diverged") && err.contains("at iteration"), "{err}");
    // Bad input: clear errors, non-zero exit.
    for (args, needle) in [
        (vec!["--sampler", "sgd", "--step", "1e-3", "--iters", "5"], "unknown sampler"),
        (vec!["--sampler", "sgld", "--step", "0", "--iters", "5"], "step size"),
        // A negative number reaches the value check (it is not taken for a flag).
        (
            vec!["--sampler", "sgld", "--step", "-1e-4", "--iters", "5"],
            "step size must be a positive finite number, got -0.0001",
        ),
        (
            vec!["--sampler", "sgld", "--step", "1e-3", "--batch", "501", "--iters", "5"],
            "larger than the number of data points",
        ),
        (vec!["--sampler", "sgld", "--step", "1e-3"], "give a budget"),
        (vec!["--sampler", "sghmc", "--step", "1e-3", "--leapfrog", "0", "--iters", "5"], "leapfrog"),
    ] {
        let o = run(&args);
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
