//! The one experiment contract (src/experiment): every kind's presets check; a config's `kind` routes it; the
//! event vocabulary (started, progress with done <= total, finished) and the report envelope are the same for
//! every kind; a stop returns the progress reached; the data a config asks for is parsed at the boundary.

use std::sync::atomic::{AtomicBool, Ordering};
use tunelab::experiments::compare::CompareDetail;
use tunelab::experiments::{Detail, Event, ExperimentConfig, Inputs, Kind, Status};
use tunelab::Error;

use crate::common::small_configs;
use small_configs::small;

fn run(cfg: ExperimentConfig, stop_when: impl Fn(&Event) -> bool) -> (tunelab::experiments::Report, Vec<Event>) {
    let checked = cfg.check().expect("check");
    let stop = AtomicBool::new(false);
    let mut events = Vec::new();
    let report = checked
        .run(
            Inputs::default(),
            &mut |e| {
                if stop_when(e) {
                    stop.store(true, Ordering::Relaxed);
                }
                events.push(e.clone());
            },
            &stop,
        )
        .expect("run");
    (report, events)
}

#[test]
fn every_kind_runs_through_the_one_contract() {
    for kind in Kind::ALL {
        let (report, events) = run(small(kind), |_| false);
        assert_eq!(report.kind, kind);
        assert_eq!(report.status, Status::Complete, "{kind:?}");
        assert!(report.result.is_some() && report.reached.is_empty());
        assert_eq!(report.config.kind(), kind);
        // started, then progress events with 0 <= done <= total (never going back), then finished
        assert!(matches!(events.first(), Some(Event::Started { kind: k, .. }) if *k == kind));
        assert!(matches!(events.last(), Some(Event::Finished { status: Status::Complete, .. })));
        let mut last = 0.0;
        let mut n = 0;
        for e in &events[1..events.len() - 1] {
            let Event::Progress { done, total, .. } = e else { panic!("{kind:?}: {e:?} between started and finished") };
            assert!(
                *done >= last - 1e-12 && *done <= *total + 1e-12 && *total > 0.0,
                "{kind:?}: {done} of {total} after {last}"
            );
            last = *done;
            n += 1;
        }
        assert!(n >= 2, "{kind:?}: {n} progress events");
        assert!(
            (report.compute.done - report.compute.total).abs() < 1e-9,
            "{kind:?}: ended at {} of {}",
            report.compute.done,
            report.compute.total
        );
        // the envelope serialises with the kind's report under `result`, and reads back as its config
        let v = serde_json::to_value(&report).unwrap();
        assert_eq!(ExperimentConfig::from_json(&v.to_string(), None).unwrap(), report.config);
        assert_eq!(v["kind"], kind.name());
        assert_eq!(v["status"], "complete");
        assert!(v["result"].is_object() && v["config"]["kind"] == kind.name());
        // the kind's own terminal table of the result (what the CLI prints)
        let table = report.result.as_ref().unwrap().table(&report.config);
        assert!(table.lines().count() >= 2, "{kind:?}: table {table:?}");
    }
}

#[test]
fn a_stop_returns_what_was_reached() {
    for kind in Kind::ALL {
        // stop at the first progress event
        let (report, events) = run(small(kind), |e| matches!(e, Event::Progress { .. }));
        assert_eq!(report.status, Status::Stopped, "{kind:?}");
        assert!(report.result.is_none());
        assert!(!report.reached.is_empty(), "{kind:?}");
        assert!(matches!(events.last(), Some(Event::Finished { status: Status::Stopped, .. })));
        let v = serde_json::to_value(&report).unwrap();
        assert_eq!(v["status"], "stopped");
        assert!(v["result"].is_null() && v["reached"].as_array().is_some_and(|a| !a.is_empty()));
    }
}

#[test]
fn every_preset_of_every_kind_checks() {
    for kind in Kind::ALL {
        let names = ExperimentConfig::preset_names(kind);
        assert!(!names.is_empty());
        for name in names {
            let cfg = ExperimentConfig::preset(kind, name).unwrap_or_else(|e| panic!("{kind:?} {name}: {e}"));
            assert_eq!(cfg.kind(), kind);
            // the JSON round trip keeps the kind and the config
            let text = serde_json::to_string(&cfg).unwrap();
            assert_eq!(ExperimentConfig::from_json(&text, None).unwrap(), cfg);
            cfg.check().unwrap_or_else(|e| panic!("{kind:?} {name}: {e}"));
        }
        assert!(ExperimentConfig::preset(kind, "no-such-preset").is_err());
    }
}

#[test]
fn the_kind_routes_a_config_and_per_kind_documents_still_work() {
    // a per-kind document (no `kind`) is accepted where the command implies its kind
    let hoag = r#"{"problem":"logreg"}"#;
    assert_eq!(ExperimentConfig::from_json(hoag, Some(Kind::Hoag)).unwrap().kind(), Kind::Hoag);
    let e = ExperimentConfig::from_json(hoag, None).unwrap_err().to_string();
    assert!(e.contains("no `kind`"), "{e}");
    let e = ExperimentConfig::from_json(r#"{"kind":"bandit","problem":"logreg"}"#, Some(Kind::Hoag))
        .unwrap_err()
        .to_string();
    assert!(e.contains("'hoag'") && e.contains("'bandit'"), "{e}");
    let e = ExperimentConfig::from_json(r#"{"kind":"nope"}"#, None).unwrap_err().to_string();
    assert!(e.contains("unknown experiment kind 'nope'"), "{e}");
    assert!(matches!(ExperimentConfig::from_json("[1]", None), Err(Error::Config(_))));
    // a tune config is a compare config's base
    let tune = serde_json::to_string(&ExperimentConfig::preset(Kind::Tune, "demo").unwrap()).unwrap();
    let as_compare = tune.replacen(r#""kind":"tune""#, r#""kind":"compare""#, 1);
    let ExperimentConfig::Compare(c) = ExperimentConfig::from_json(&as_compare, None).unwrap() else { panic!() };
    assert_eq!(c.reference_samples, 20_000);
    // a bad value is refused once, by check, with the kind's message
    let mut bad = small(Kind::Tune);
    if let ExperimentConfig::Tune(t) = &mut bad {
        t.thin = 0;
    }
    assert!(bad.check().err().unwrap().to_string().contains("thin"));
}

#[test]
fn the_summary_is_what_the_run_does() {
    let checked = small(Kind::Tune).check().unwrap();
    let s = checked.summary();
    assert_eq!(s["arm_count"], 3);
    assert_eq!(s["rounds"].as_array().unwrap().len(), 1); // 3 arms, eta 3: one round then the best
    let steps: Vec<f64> = s["arms"].as_array().unwrap().iter().map(|a| a["step"].as_f64().unwrap()).collect();
    assert_eq!(steps.len(), 3);
    let (report, _) = run(small(Kind::Tune), |_| false);
    let Some(tunelab::experiments::Output::Tune(r)) = report.result else { panic!() };
    let ran: Vec<f64> = r.arms.iter().map(|a| a.info.step).collect();
    assert_eq!(ran, steps);
    // a descending range gives the same grid in the other order
    let mut desc = small(Kind::Tune);
    if let ExperimentConfig::Tune(t) = &mut desc {
        let g = t.arms.log10_step.as_mut().unwrap();
        (g.from, g.to) = (g.to, g.from);
    }
    let s = desc.check().unwrap().summary();
    let rev: Vec<f64> = s["arms"].as_array().unwrap().iter().map(|a| a["step"].as_f64().unwrap()).collect();
    assert_eq!(rev, steps.iter().rev().copied().collect::<Vec<_>>());
}

#[test]
fn user_data_is_requested_and_parsed_at_the_boundary() {
    let mut cfg = small(Kind::Hoag);
    cfg.use_csv("/tmp/does-not-matter.csv", "label", false).unwrap();
    let checked = cfg.check().unwrap();
    let req = checked.data_request().expect("a CSV is requested");
    assert_eq!(req.path.as_deref(), Some("/tmp/does-not-matter.csv"));
    assert_eq!(req.label, "label");
    let mut csv = String::from("a,b,label\n");
    for i in 0..60 {
        csv.push_str(&format!("{},{},{}\n", (i as f64 * 0.7).sin(), (i as f64 * 1.3).cos(), i % 2));
    }
    let data = req.parse(&csv).unwrap();
    let report =
        checked.run(Inputs { data: Some(data), ..Default::default() }, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let Some(tunelab::experiments::Output::Hoag(h)) = report.result else { panic!() };
    assert_eq!(h.n_train + h.n_test + h.n_validation, 60);
    // a kind without user data says so
    let mut step = small(Kind::StepSize);
    assert!(step.use_csv("x.csv", "y", false).is_err());
    // a parse error names the line
    let e = req.parse("a,b,label\n1,2,0\n1,2\n").unwrap_err().to_string();
    assert!(e.contains("line 3"), "{e}");
}

/// Runs `cfg` and raises the stop flag from another thread shortly after the start.
fn run_stopped_from_outside(cfg: ExperimentConfig) -> tunelab::experiments::Report {
    let checked = cfg.check().expect("check");
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stop.store(true, Ordering::Relaxed);
        });
        checked.run(Inputs::default(), &mut |_| {}, &stop).expect("run")
    })
}

#[test]
fn long_stretches_without_events_still_honour_the_stop_flag() {
    // One chunk of a million rounds (one checkpoint): the flag is read inside the chunk, so the run stops
    // instead of completing its only chunk.
    let bandit = ExperimentConfig::from_json(
        r#"{"kind":"bandit","problem":{"kind":"bernoulli","means":[0.2,0.5,0.8]},"algorithms":[{"kind":"ttts"}],
            "rounds":1000000,"repeats":1,"seed":2,"checkpoints":1}"#,
        None,
    )
    .unwrap();
    assert_eq!(run_stopped_from_outside(bandit).status, Status::Stopped);
    // The comparison's long exact reference run comes before any tuner: stopped inside it, what was reached
    // is the reference's own progress (issue 27), nothing of the tuners.
    let mut compare = small(Kind::Compare);
    if let ExperimentConfig::Compare(c) = &mut compare {
        c.reference_samples = 5_000_000;
    }
    let r = run_stopped_from_outside(compare);
    assert_eq!(r.status, Status::Stopped);
    assert!(!r.reached.is_empty());
    for d in &r.reached {
        assert!(matches!(d, Detail::Compare(CompareDetail::Reference(p)) if p.done < p.total), "{d:?}");
    }
}

/// Issue 27: a comparison's exact reference is a phase with its own progress (MALA iterations done of its
/// total, from 0 to the end, about a hundred events) before the first tuner's; the comparison's own progress
/// (tuners) stays at 0 meanwhile. A stop inside it returns a report whose `reached` says how far it got.
#[test]
fn a_comparison_reports_its_reference_phase_and_a_stop_inside_it() {
    let mut cfg = small(Kind::Compare);
    let ExperimentConfig::Compare(c) = &mut cfg else { panic!() };
    c.reference_samples = 2_000;
    let (n, thin) = (2_000u64, 5u64);
    let all = n / 2 + n * thin; // warm-up n/2, then n draws kept every 5th (compare::reference)
    let (report, events) = run(cfg.clone(), |_| false);
    assert_eq!(report.status, Status::Complete);
    let mut phase = Vec::new();
    let mut first_tuner = None;
    for (i, e) in events.iter().enumerate() {
        match e {
            Event::Progress { done, detail: Detail::Compare(CompareDetail::Reference(p)), .. } => {
                assert!(first_tuner.is_none(), "reference progress after a tuner's event");
                assert_eq!(*done, 0.0);
                assert_eq!((p.total, p.unit), (all, "MALA iterations"));
                phase.push(p.done);
            }
            Event::Progress { detail: Detail::Compare(CompareDetail::Tuner(_)), .. } => {
                first_tuner.get_or_insert(i);
            }
            _ => {}
        }
    }
    assert!(first_tuner.is_some());
    assert_eq!(phase.first(), Some(&0));
    assert_eq!(phase.last(), Some(&all));
    assert!(phase.windows(2).all(|w| w[0] < w[1]), "{phase:?}");
    assert!((20..=110).contains(&phase.len()), "{} reference events", phase.len());
    // as the page and Python see it
    let v = serde_json::to_value(
        events
            .iter()
            .find_map(|e| match e {
                Event::Progress { detail: d @ Detail::Compare(CompareDetail::Reference(_)), .. } => Some(d),
                _ => None,
            })
            .unwrap(),
    )
    .unwrap();
    assert_eq!(v, serde_json::json!({"type": "reference", "done": 0, "total": all, "unit": "MALA iterations"}));

    // stopped at the reference's third progress event: stopped, and `reached` ends there
    let (report, _) = run(
        cfg,
        |e| matches!(e, Event::Progress { detail: Detail::Compare(CompareDetail::Reference(p)), .. } if p.done > 0 && p.done >= 2 * phase[1]),
    );
    assert_eq!(report.status, Status::Stopped);
    assert!(report.result.is_none());
    assert_eq!(report.compute.done, 0.0);
    let Some(Detail::Compare(CompareDetail::Reference(last))) = report.reached.last() else {
        panic!("{:?}", report.reached.last())
    };
    assert_eq!((last.done, last.total), (2 * phase[1], all));
    assert_eq!(report.reached.len(), 3);
}

/// Each tuner's fresh evaluation chain is a phase with its own progress, after the tuner's `done` and before the
/// next tuner's `started`: from 0 to the plan's total (10 R gradient evaluations here), rising, at most one event
/// per percent after the first, with the tuner's name and index; the comparison's own progress stays at the
/// tuner's index + 1. A stop inside it says how far the chain got.
#[test]
fn a_comparison_reports_each_evaluation_chain() {
    use tunelab::experiments::tune::Event as TuneEvent;
    let cfg = small(Kind::Compare);
    let (report, events) = run(cfg.clone(), |_| false);
    assert_eq!(report.status, Status::Complete);
    let names: Vec<String> = cfg.clone().check().expect("check").summary()["tuners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    // per tuner: (done values of its evaluation events, progress values); the phase's place among the events
    let mut seen: Vec<(Vec<f64>, Vec<f64>)> = vec![(vec![], vec![]); names.len()];
    let mut last_tuner_event: Option<(usize, bool)> = None; // (index, was `done`)
    for e in &events {
        match e {
            Event::Progress { done, total, detail: Detail::Compare(CompareDetail::Evaluation(p)) } => {
                assert_eq!(names[p.index], p.tuner);
                assert_eq!(
                    last_tuner_event,
                    Some((p.index, true)),
                    "evaluation of {} not right after its done",
                    p.tuner
                );
                assert_eq!((*done, *total), (p.index as f64 + 1.0, names.len() as f64));
                assert_eq!((p.total, p.unit), (200_000.0, "gradient evaluations"));
                seen[p.index].0.push(p.done);
            }
            Event::Progress { detail: Detail::Compare(CompareDetail::Tuner(t)), .. } => {
                last_tuner_event = Some((t.index, matches!(t.event, TuneEvent::Done { .. })));
            }
            _ => {}
        }
    }
    for (i, (dones, _)) in seen.iter().enumerate() {
        assert_eq!(dones.first(), Some(&0.0), "{}", names[i]);
        assert_eq!(dones.last(), Some(&200_000.0), "{}", names[i]);
        assert!(dones.windows(2).all(|w| w[0] < w[1]), "{}: {dones:?}", names[i]);
        // the start, then after slices of the chain (at d = 3 a slice is a large share of this short chain)
        assert!((3..=101).contains(&dones.len()), "{}: {dones:?}", names[i]);
    }
    let v = serde_json::to_value(
        events
            .iter()
            .find_map(|e| match e {
                Event::Progress { detail: d @ Detail::Compare(CompareDetail::Evaluation(_)), .. } => Some(d),
                _ => None,
            })
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        v,
        serde_json::json!({"type": "evaluation", "tuner": names[0], "index": 0, "done": 0.0, "total": 200000.0, "unit": "gradient evaluations"})
    );
    // stopped inside the second tuner's evaluation, at its first event after the start: `reached` ends with it
    let (stopped, _) = run(
        cfg,
        |e| matches!(e, Event::Progress { detail: Detail::Compare(CompareDetail::Evaluation(p)), .. } if p.index == 1 && p.done > 0.0),
    );
    assert_eq!(stopped.status, Status::Stopped);
    let Some(Detail::Compare(CompareDetail::Evaluation(last))) = stopped.reached.last() else {
        panic!("{:?}", stopped.reached.last())
    };
    assert_eq!((last.index, last.done), (1, seen[1].0[1]), "{last:?}");
    assert!(last.done < 200_000.0, "{last:?}");
}

/// A comparison's `check` summary carries its cost model (issue 26, item 1: the page estimates the whole
/// comparison's time from it): per tuner its budget unit and the rounds its `started` event then carries, and
/// the fresh evaluation chain's budget.
#[test]
fn a_comparison_summary_plans_every_tuner_as_it_then_runs() {
    use tunelab::experiments::tune::Event as TuneEvent;
    let cfg = small(Kind::Compare);
    let summary = cfg.clone().check().expect("check").summary();
    let plans = summary["plans"].as_array().expect("plans").clone();
    let (_, events) = run(cfg, |_| false);
    let started: Vec<(String, serde_json::Value)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Progress { detail: Detail::Compare(CompareDetail::Tuner(t)), .. } => match &t.event {
                TuneEvent::Started { schedule, .. } => Some((t.tuner.clone(), serde_json::to_value(schedule).unwrap())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(plans.len(), 5);
    assert_eq!(plans.len(), started.len());
    for (p, (name, schedule)) in plans.iter().zip(&started) {
        assert_eq!(p["name"], name.as_str());
        assert_eq!(p["plan"]["rounds"], *schedule, "{name}");
    }
    // The grid (log-loss) baseline's per-point budget is App. B's 5,000 iterations (logistic), in its own unit.
    let grid = plans.iter().find(|p| p["name"] == "grid (log-loss)").expect("grid (log-loss)");
    assert_eq!(grid["unit"], "iterations");
    assert_eq!(grid["plan"]["rounds"][0]["budget"], 5000.0);
    assert_eq!(plans[0]["unit"], "grad-evals");
    // The fresh evaluation chain: 10 R for logistic regression, no burn-in (EvaluationSpec::paper_defaults).
    assert_eq!(summary["evaluation"], serde_json::json!({"budget": {"grad_evals": 200000.0}, "burn_in": 0.0}));
    assert_eq!(summary["reference_samples"], 0);
}

/// A report as JSON without its wall times (every `*seconds` field), which no two runs share.
fn without_times(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => {
            m.into_iter().filter(|(k, _)| !k.ends_with("seconds")).map(|(k, v)| (k, without_times(v))).collect()
        }
        serde_json::Value::Array(a) => a.into_iter().map(without_times).collect(),
        v => v,
    }
}

#[test]
fn a_saved_reference_gives_the_report_of_a_recomputed_one_for_any_sampler() {
    use tunelab::experiments::compare::SavedReference;
    use tunelab::experiments::Output;
    use tunelab::sampler::SamplerKind;
    let compare = |kind: SamplerKind| {
        let mut cfg = small(Kind::Compare);
        let ExperimentConfig::Compare(c) = &mut cfg else { panic!() };
        c.reference_samples = 400;
        c.base.sampler.kind = kind;
        let c = c.clone();
        (cfg, c)
    };
    let run_with = |cfg: ExperimentConfig, reference: Option<SavedReference>| {
        cfg.check().unwrap().run(Inputs { reference, ..Default::default() }, &mut |_| {}, &AtomicBool::new(false))
    };
    let result = |r: &tunelab::experiments::Report| match &r.result {
        Some(Output::Compare(c)) => c.reference.clone().expect("a reference"),
        _ => panic!("not a comparison"),
    };
    // computed with SGLD, saved as JSON, read back and given to an SGLD-CV comparison of the same data and seed
    let (sgld, sgld_cmp) = compare(SamplerKind::Sgld);
    let first = run_with(sgld, None).unwrap();
    let saved = SavedReference { key: sgld_cmp.reference_key(), reference: result(&first) };
    let text = serde_json::to_string(&saved).unwrap();
    let read = SavedReference::from_json(&text).unwrap();
    assert_eq!(read, saved, "a saved reference reads back bit for bit");
    let (cv, cv_cmp) = compare(SamplerKind::SgldCv);
    let recomputed = run_with(cv.clone(), None).unwrap();
    let reused = run_with(cv.clone(), Some(read.clone())).unwrap();
    assert_eq!(result(&recomputed).std, saved.reference.std, "the reference does not depend on the sampler");
    assert_eq!(result(&reused), saved.reference);
    let (a, b) = (serde_json::to_value(&recomputed).unwrap(), serde_json::to_value(&reused).unwrap());
    assert_eq!(without_times(a), without_times(b));
    // a reference of other data, seed or size, of the wrong dimension, a bad file, or given to another kind:
    // configuration errors, no panic
    let mut other_seed = read.clone();
    other_seed.key.seed += 1;
    let e = run_with(cv.clone(), Some(other_seed)).unwrap_err();
    assert!(matches!(&e, Error::Config(m) if m.contains("seed")), "{e}");
    let mut other_size = read.clone();
    other_size.key =
        tunelab::experiments::compare::CompareConfig { reference_samples: 500, ..cv_cmp.clone() }.reference_key();
    assert!(matches!(run_with(cv.clone(), Some(other_size)), Err(Error::Config(m)) if m.contains("reference_samples")));
    let mut short = read.clone();
    short.reference.mean.pop();
    assert!(matches!(run_with(cv.clone(), Some(short)), Err(Error::Config(m)) if m.contains("dimension")));
    let mut nan = read.clone();
    nan.reference.std[0] = f64::NAN;
    assert!(matches!(run_with(cv, Some(nan)), Err(Error::Config(_))));
    for bad in ["", "{", "[1]", r#"{"key":1,"reference":2}"#, &text.replace("\"samples\"", "\"sample\"")] {
        assert!(matches!(SavedReference::from_json(bad), Err(Error::Config(_))), "{bad}");
    }
    assert!(matches!(run_with(small(Kind::Tune), Some(read)), Err(Error::Config(m)) if m.contains("compare")));
}

/// A comparison honours `"kernel": "plain"` (the paper's c = 1, beta = -1/2): MAMBA-KSD and grid (KSD) score with
/// it, and the evaluation's KSD equals a recomputation with the plain kernel on the chosen samples; without it
/// the run kernel scores everything, as before.
#[test]
fn compare_honours_the_plain_kernel() {
    use tunelab::experiments::compare::CompareConfig;
    use tunelab::experiments::sgmcmc::metric::score_vectors;
    use tunelab::experiments::sgmcmc::run_kernel::{KsdKernel, RunKernel};
    use tunelab::experiments::sgmcmc::Posterior;
    use tunelab::experiments::tune::MetricKind;
    use tunelab::experiments::Output;
    let go = |kernel: Option<KsdKernel>| {
        let mut cfg = small(Kind::Compare);
        let ExperimentConfig::Compare(c) = &mut cfg else { panic!() };
        c.reference_samples = 0;
        c.tuners = vec!["MAMBA-KSD".into(), "grid (KSD)".into()];
        if let MetricKind::Ksd { kernel: k, .. } = &mut c.base.metric.kind {
            *k = kernel;
        } else {
            panic!("the small compare config scores by KSD");
        }
        let base: CompareConfig = c.clone();
        let report = cfg.check().unwrap().run(Inputs::default(), &mut |_| {}, &AtomicBool::new(false)).unwrap();
        let Some(Output::Compare(cmp)) = report.result else { panic!("not a comparison") };
        (base, cmp)
    };
    let (base, plain) = go(Some(KsdKernel::Plain));
    let problem = Posterior::build(&base.base, None).unwrap();
    for e in &plain.entries {
        let k = e.report.kernel.as_ref().expect("a KSD tuner records its kernel");
        assert_eq!(k.kind, KsdKernel::Plain, "{}", e.name);
        assert_eq!((k.c, k.beta), (1.0, -0.5), "{}", e.name);
        // the evaluation's KSD, recomputed with the plain kernel on the same samples (the fresh evaluation
        // chain from the MAP, the default) and score stream
        let best = e.report.best.as_ref().expect("a chosen arm");
        let d = problem.dim;
        let plan = base.evaluation.resolve(&base.base).expect("a fresh evaluation run by default");
        let (_, x, _) = tunelab::experiments::compare::fresh_chain(
            &problem,
            &e.report.config,
            best,
            &plan,
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(x.len() / d, e.evaluation.fresh_run.as_ref().unwrap().scored_samples);
        let mut r = tunelab::rng::stream(base.base.seed, (1 << 40) + 4);
        let g = score_vectors(problem.train.as_ref(), &x, None, &mut r);
        let plain_kind = MetricKind::Ksd {
            kernel: Some(KsdKernel::Plain),
            scale: None,
            estimator: None,
            c: None,
            beta: None,
            moment: None,
        };
        let kernel = RunKernel::for_metric(&plain_kind, problem.train.as_ref(), &problem.map).unwrap().unwrap();
        let want = RunKernel::rank_value(&kernel.ksd(&x, &g, d).unwrap());
        assert_eq!(e.evaluation.ksd, Some(want), "{}", e.name);
    }
    let (_, default) = go(None);
    for e in &default.entries {
        assert_eq!(e.report.kernel.as_ref().map(|k| k.kind), Some(KsdKernel::Run), "{}", e.name);
    }
}
