//! Checkpoint and resume on the round executor: a run stopped after round k and resumed from the checkpoint
//! it wrote (read back from its JSON text, as from a file) gives the report of the run never stopped, bit for
//! bit (the timing fields aside), for every k.

use std::sync::atomic::{AtomicBool, Ordering};
use tunelab::experiments::executor::Checkpoint;
use tunelab::experiments::{ExperimentConfig, Inputs, Kind, Status};

/// The report as JSON with every timing field (`seconds`, `*_seconds`) removed.
fn untimed(mut v: serde_json::Value) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.retain(|k, _| k != "seconds" && !k.ends_with("_seconds"));
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// Runs `cfg` to its end, saving every checkpoint (as JSON text); returns the untimed report and the
/// checkpoints.
fn run_saving(cfg: &ExperimentConfig) -> (serde_json::Value, Vec<String>) {
    let checked = cfg.clone().check().unwrap();
    let mut saved = Vec::new();
    let mut save = |c: &Checkpoint| {
        saved.push(serde_json::to_string(c).unwrap());
        Ok(())
    };
    let stop = AtomicBool::new(false);
    let r = checked.run_resumable(Inputs::default(), &mut |_| {}, &stop, None, Some(&mut save)).unwrap();
    assert_eq!(r.status, Status::Complete);
    (untimed(serde_json::to_value(&r).unwrap()), saved)
}

/// Stops a run at its `k`-th checkpoint (the stop flag set from the checkpoint hook, as Ctrl-C would), then
/// resumes it from that checkpoint's text; returns the resumed run's untimed report.
fn stop_and_resume(cfg: &ExperimentConfig, k: usize) -> serde_json::Value {
    let checked = cfg.clone().check().unwrap();
    let stop = AtomicBool::new(false);
    let mut last = None;
    let mut count = 0;
    let mut save = |c: &Checkpoint| {
        count += 1;
        last = Some(serde_json::to_string(c).unwrap());
        if count == k {
            stop.store(true, Ordering::SeqCst);
        }
        Ok(())
    };
    let r = checked.run_resumable(Inputs::default(), &mut |_| {}, &stop, None, Some(&mut save)).unwrap();
    assert_eq!(r.status, Status::Stopped, "the run stops after checkpoint {k}");
    let text = last.expect("a checkpoint was written");
    let c = Checkpoint::from_json(&text).unwrap();
    let resumed = c.experiment_config().unwrap().check().unwrap();
    let r = resumed.run_resumable(Inputs::default(), &mut |_| {}, &AtomicBool::new(false), Some(&c), None).unwrap();
    assert_eq!(r.status, Status::Complete);
    untimed(serde_json::to_value(&r).unwrap())
}

/// The first JSON path where two documents differ (a readable failure instead of two whole reports).
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value as V;
    match (a, b) {
        (V::Object(x), V::Object(y)) => x.keys().chain(y.keys()).find_map(|k| match (x.get(k), y.get(k)) {
            (Some(u), Some(v)) => first_difference(u, v, &format!("{path}.{k}")),
            _ => Some(format!("{path}.{k}: only in one")),
        }),
        (V::Array(x), V::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (u, v))| first_difference(u, v, &format!("{path}[{i}]")))
        }
        _ => (a != b).then(|| format!("{path}: {a} against {b}")),
    }
}

fn resumes_exactly(cfg: ExperimentConfig, min_checkpoints: usize) {
    let (whole, saved) = run_saving(&cfg);
    assert!(saved.len() >= min_checkpoints, "{} checkpoints", saved.len());
    for k in 1..saved.len() {
        let resumed = stop_and_resume(&cfg, k);
        assert!(
            resumed == whole,
            "stopped at checkpoint {k} and resumed: {:?}",
            first_difference(&resumed, &whole, "")
        );
    }
    // Resuming from the last checkpoint (every round done) only assembles the report.
    let c = Checkpoint::from_json(saved.last().unwrap()).unwrap();
    let r = cfg.check().unwrap().run_resumable(Inputs::default(), &mut |_| {}, &AtomicBool::new(false), Some(&c), None);
    assert_eq!(untimed(serde_json::to_value(r.unwrap()).unwrap()), whole);
}

#[test]
fn a_tune_run_resumed_after_any_round_equals_the_run_never_stopped() {
    // MAMBA on the Gaussian preset (9 arms, eta = 3: two rounds) with drill-down draws: pruned arms, draws kept
    // across rounds.
    let mut cfg = ExperimentConfig::preset(Kind::Tune, "gaussian").unwrap();
    if let ExperimentConfig::Tune(t) = &mut cfg {
        t.arm_draws = 20;
    }
    resumes_exactly(cfg, 2);
}

#[test]
fn a_comparison_resumed_mid_tuner_or_between_tuners_equals_the_comparison_never_stopped() {
    resumes_exactly(ExperimentConfig::preset(Kind::Compare, "gaussian").unwrap(), 5);
}

/// A bandit preset cut to `rounds` rounds, 2 repeats and 6 checkpoint rounds (a chunk of rounds each: 6 saved
/// states), for `algorithms` (indices into the preset's list; all when empty).
fn small_bandit(preset: &str, rounds: usize, algorithms: &[usize], problem: serde_json::Value) -> ExperimentConfig {
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Bandit, preset).unwrap()).unwrap();
    for (k, x) in problem.as_object().unwrap() {
        v["problem"][k] = x.clone();
    }
    v["rounds"] = rounds.into();
    v["repeats"] = 2.into();
    v["checkpoints"] = 6.into();
    if !algorithms.is_empty() {
        let all = v["algorithms"].as_array().unwrap().clone();
        v["algorithms"] = algorithms.iter().map(|&i| all[i].clone()).collect();
    }
    ExperimentConfig::from_value(&mut v, None).unwrap()
}

#[test]
fn a_bandit_run_resumed_after_any_chunk_of_rounds_equals_the_run_never_stopped() {
    // Bernoulli arms with TTTS and successive halving (Beta posteriors, halving brackets).
    resumes_exactly(crate::common::small_configs::small(Kind::Bandit), 6);
    // Every problem whose pulls change its state, so that a resume must replay them: the TVO-like schedule
    // (training progress; GP-UCB on ordered points, the optimal-schedule chart), kernel ridge HPO (each arm's
    // pull count), logistic regression by SGD (an arm's training charged on its first pull); and the Branin
    // function with GP-UCB (a GP refitted as it goes) and random search.
    use serde_json::json;
    resumes_exactly(small_bandit("tvo-schedule", 18, &[0, 3], json!({})), 6);
    resumes_exactly(small_bandit("kernel-ridge-wine", 30, &[0, 3], json!({"reference_arms": 5, "truth_folds": 2})), 6);
    let simulated = json!({"data": {"source": "simulate", "n": 200, "d": 3}, "pool": 12, "epochs": 1});
    resumes_exactly(small_bandit("logreg-sgd", 30, &[0, 3], simulated), 6);
    resumes_exactly(small_bandit("branin", 18, &[0, 2], json!({})), 6);
}

#[test]
fn a_step_size_run_resumed_after_any_window_equals_the_run_never_stopped() {
    // Round 0 runs the fixed steps, then one round a GP-UCB window (5 windows: 6 saved states).
    resumes_exactly(crate::common::small_configs::small(Kind::StepSize), 6);
}

#[test]
fn a_checkpoint_of_another_config_is_refused() {
    let cfg = ExperimentConfig::preset(Kind::Tune, "gaussian").unwrap();
    let (_, saved) = run_saving(&cfg);
    let c = Checkpoint::from_json(&saved[0]).unwrap();
    let mut other = cfg.clone();
    other.set_seed(12345);
    let e = other
        .check()
        .unwrap()
        .run_resumable(Inputs::default(), &mut |_| {}, &AtomicBool::new(false), Some(&c), None)
        .unwrap_err();
    assert!(e.to_string().contains("another config"), "{e}");
    // A damaged state is an error, not a panic.
    let mut bad: serde_json::Value = serde_json::from_str(&saved[0]).unwrap();
    bad["state"]["arms"][0]["chain"]["theta"] = serde_json::json!([]);
    let c: Checkpoint = serde_json::from_value(bad).unwrap();
    let e = cfg
        .check()
        .unwrap()
        .run_resumable(Inputs::default(), &mut |_| {}, &AtomicBool::new(false), Some(&c), None)
        .unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
    assert!(Checkpoint::from_json("{\"format\": 1}").is_err());
}

#[test]
fn a_kind_without_rounds_refuses_a_checkpoint() {
    let cfg = ExperimentConfig::preset(Kind::Hoag, "logreg").unwrap();
    let mut save = |_: &Checkpoint| Ok(());
    let e = cfg
        .check()
        .unwrap()
        .run_resumable(Inputs::default(), &mut |_| {}, &AtomicBool::new(false), None, Some(&mut save))
        .unwrap_err();
    assert!(e.to_string().contains("cannot be checkpointed"), "{e}");
}
