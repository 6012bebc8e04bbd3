//! What a stopped run keeps: the `result` of a stopped report, rebuilt from the progress details it reached
//! ([`Report::reached`]). The front ends (CLI, Python) write it so that a run stopped by Ctrl-C keeps every
//! arm scored so far, the best arm so far and the rounds it did not reach, in the shape of the complete
//! report's `result` (so tables and plots read it) with `"partial": true`.
//!
//! - tune: `arms` (each with its hyperparameters, its `scores` so far, `status`: `survivor` / `pruned`),
//!   `rounds` (the rounds started, `finished` whether it was scored), `best` (the arm with the lowest score
//!   in the last round that scored any arm: arms are compared on equal budgets only, as MAMBA compares them;
//!   `round` tells which), `not_reached` (`rounds`: the planned rounds not finished, `planned`: their plans);
//! - compare: `entries`, one per tuner started (its tune partial, with `name`), and `not_reached.tuners`;
//! - other kinds: `last` (the last progress detail) and `not_reached` (done / total of the run's unit).
//!
//! Rounds are numbered from 0, as everywhere in the JSON.

use super::compare::CompareDetail;
use super::sgmcmc::report::{ArmInfo, Event as TuneEvent};
use super::{Detail, Kind, Report, Status};
use crate::bandit::schedule::RoundPlan;
use serde_json::{json, Value};

/// The stopped result of `report` (a stopped run), or `None` for a complete run.
pub fn stopped_result(report: &Report) -> Option<Value> {
    if report.status != Status::Stopped {
        return None;
    }
    let reached = &report.reached;
    let mut out = match report.kind {
        Kind::Tune => {
            let events: Vec<&TuneEvent> =
                reached.iter().filter_map(|d| if let Detail::Tune(e) = d { Some(e) } else { None }).collect();
            tune_partial(&events)
        }
        Kind::Compare => {
            let mut names: Vec<String> = Vec::new();
            let mut per: Vec<Vec<&TuneEvent>> = Vec::new();
            for d in reached {
                if let Detail::Compare(CompareDetail::Tuner(t)) = d {
                    let i = match names.iter().position(|n| *n == t.tuner) {
                        Some(i) => i,
                        None => {
                            names.push(t.tuner.clone());
                            per.push(Vec::new());
                            names.len() - 1
                        }
                    };
                    per[i].push(&t.event);
                }
            }
            let entries: Vec<Value> = names
                .iter()
                .zip(&per)
                .map(|(name, ev)| {
                    let mut p = tune_partial(ev);
                    p["name"] = json!(name);
                    p["evaluation"] = Value::Null;
                    p
                })
                .collect();
            let c = &report.compute;
            json!({
                "entries": entries,
                "not_reached": {"tuners": (c.total - entries.len() as f64).max(0.0), "done": c.done, "total": c.total, "unit": c.unit},
            })
        }
        _ => {
            let last = reached.last();
            let c = &report.compute;
            json!({
                "last": last,
                "not_reached": {"done": c.done, "total": c.total, "unit": c.unit},
            })
        }
    };
    out["partial"] = json!(true);
    Some(out)
}

/// A tune run's partial result from its events (see the module docs); no arms before its `started` event.
fn tune_partial(events: &[&TuneEvent]) -> Value {
    let mut tuner = String::new();
    let mut infos: Vec<ArmInfo> = Vec::new();
    let mut plan: Vec<RoundPlan> = Vec::new();
    // each arm's scores so far, with the round of each
    let mut scores: Vec<Vec<(usize, Option<f64>)>> = Vec::new();
    let mut pruned: Vec<Option<usize>> = Vec::new();
    // (round, arms, budget, finished)
    let mut rounds: Vec<(usize, Vec<usize>, f64, bool)> = Vec::new();
    for e in events {
        match e {
            TuneEvent::Started { tuner: t, arms, schedule, .. } => {
                tuner = t.clone();
                infos = arms.clone();
                plan = schedule.clone();
                scores = vec![Vec::new(); arms.len()];
                pruned = vec![None; arms.len()];
                rounds.clear();
            }
            TuneEvent::RoundStarted { round, arms, budget } => rounds.push((*round, arms.clone(), *budget, false)),
            TuneEvent::ArmScored { round, arm, score, .. } => {
                if let Some(s) = scores.get_mut(*arm) {
                    s.push((*round, *score));
                }
            }
            TuneEvent::Pruned { round, arms } => {
                for a in arms {
                    if let Some(p) = pruned.get_mut(*a) {
                        *p = Some(*round);
                    }
                }
            }
            TuneEvent::RoundFinished { round, .. } => {
                if let Some(r) = rounds.iter_mut().find(|r| r.0 == *round) {
                    r.3 = true;
                }
            }
            TuneEvent::Progress { .. } | TuneEvent::Done { .. } => {}
        }
    }
    let arms: Vec<Value> = infos
        .iter()
        .enumerate()
        .map(|(i, info)| {
            let mut v = serde_json::to_value(info).unwrap_or(Value::Null);
            v["arm"] = json!(i);
            v["scores"] = json!(scores[i].iter().map(|s| s.1).collect::<Vec<_>>());
            v["pruned_round"] = json!(pruned[i]);
            v["status"] = json!(if pruned[i].is_some() { "pruned" } else { "survivor" });
            v
        })
        .collect();
    // The best so far: the lowest finite score of the last round that scored an arm (equal budgets).
    let mut best = Value::Null;
    for (round, ..) in rounds.iter().rev() {
        let mut pick: Option<(usize, f64)> = None;
        for (a, s) in scores.iter().enumerate() {
            for &(r, v) in s {
                if let (true, Some(v)) = (r == *round, v) {
                    if v.is_finite() && pick.is_none_or(|(_, b)| v < b) {
                        pick = Some((a, v));
                    }
                }
            }
        }
        if let Some((a, s)) = pick {
            let info = &infos[a];
            best = json!({
                "arm": a, "score": s, "round": round, "step": info.step, "batch": info.batch,
                "batch_fraction": info.batch_fraction, "leapfrog": info.leapfrog,
                "params": {"step": info.step, "batch": info.batch, "leapfrog": info.leapfrog},
            });
            break;
        }
    }
    let finished = rounds.iter().filter(|r| r.3).count();
    let not_reached: Vec<usize> = (finished..plan.len()).collect();
    json!({
        "tuner": tuner,
        "arms": arms,
        "rounds": rounds.iter().map(|(round, arms, budget, fin)| json!({"round": round, "arms": arms, "budget": budget, "finished": fin})).collect::<Vec<_>>(),
        "best": best,
        "not_reached": {"rounds": not_reached, "planned": plan.get(finished..).unwrap_or(&[])},
    })
}

/// The JSON document of a report as the front ends write it: a stopped report's `result` is its
/// [`stopped_result`].
pub fn report_value(report: &Report) -> serde_json::Result<Value> {
    let mut v = serde_json::to_value(report)?;
    if let Some(p) = stopped_result(report) {
        v["result"] = p;
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: usize, step: f64) -> ArmInfo {
        ArmInfo { id, step, batch: 10, batch_fraction: 0.1, leapfrog: 1 }
    }

    /// Three arms, two planned rounds, stopped in round 1: every arm with its round-0 score, the pruned one
    /// marked, the best of round 0 (the last round that scored), round 1 not reached.
    #[test]
    fn a_tune_run_stopped_in_its_second_round_keeps_its_first_round() {
        let plan = vec![RoundPlan { arms: 3, budget: 100.0, keep: 1 }, RoundPlan { arms: 1, budget: 300.0, keep: 1 }];
        let ev = [
            TuneEvent::Started {
                tuner: "MAMBA".into(),
                arms: vec![info(0, 1e-3), info(1, 1e-2), info(2, 1e-1)],
                schedule: plan.clone(),
                dim: 2,
                n_data: 100,
            },
            TuneEvent::RoundStarted { round: 0, arms: vec![0, 1, 2], budget: 100.0 },
            TuneEvent::ArmScored { round: 0, arm: 0, score: Some(0.5), grad_evals: 10, samples: 5 },
            TuneEvent::ArmScored { round: 0, arm: 1, score: Some(0.25), grad_evals: 10, samples: 5 },
            TuneEvent::ArmScored { round: 0, arm: 2, score: None, grad_evals: 10, samples: 5 },
            TuneEvent::Pruned { round: 0, arms: vec![0, 2] },
            TuneEvent::RoundFinished { round: 0, survivors: vec![1] },
            TuneEvent::RoundStarted { round: 1, arms: vec![1], budget: 300.0 },
        ];
        let refs: Vec<&TuneEvent> = ev.iter().collect();
        let p = tune_partial(&refs);
        assert_eq!(p["arms"].as_array().unwrap().len(), 3);
        assert_eq!(p["arms"][0]["scores"], json!([0.5]));
        assert_eq!(p["arms"][2]["scores"], json!([null]));
        assert_eq!(p["arms"][0]["status"], "pruned");
        assert_eq!(p["arms"][0]["pruned_round"], 0);
        assert_eq!(p["arms"][1]["status"], "survivor");
        assert_eq!(p["best"]["arm"], 1);
        assert_eq!(p["best"]["score"], 0.25);
        assert_eq!(p["best"]["round"], 0);
        assert_eq!(p["best"]["params"]["step"], 1e-2);
        assert_eq!(p["rounds"][0]["finished"], true);
        assert_eq!(p["rounds"][1]["finished"], false);
        assert_eq!(p["not_reached"]["rounds"], json!([1]));
        assert_eq!(p["not_reached"]["planned"][0]["budget"], 300.0);
        // before its first event a tune run has no arms and reached no round
        let empty = tune_partial(&[]);
        assert_eq!(empty["arms"], json!([]));
        assert!(empty["best"].is_null());
    }
}
