//! Why the small PMF run did not beat the mean predictor (`cargo run --release --example pmf_probe`):
//! held-out RMSE of the mean predictor, the MAP and the chosen arm on 600 and 12,000 simulated ratings.
use std::sync::atomic::AtomicBool;
use tunelab::experiments::sgmcmc;
use tunelab::experiments::tune;
fn main() {
    for &(users, items, ratings, latent, grad) in
        &[(30usize, 40usize, 600usize, 20usize, 2.0e5), (200, 300, 12_000, 5, 1.0e6)]
    {
        let mut cfg = tune::presets::preset("pmf").unwrap();
        cfg.data.source = tune::DataSource::SimulateRatings { users, items, ratings, latent: 20, seed: 1 };
        cfg.model = serde_json::from_str(&format!(r#"{{"kind":"pmf","latent":{latent}}}"#)).unwrap();
        cfg.arms.log10_step = Some(tune::LogRange { from: -4.0, to: -2.5, by: 0.5 });
        cfg.budget = tune::BudgetSpec { grad_evals: Some(grad), ..Default::default() };
        cfg.metric.max_samples = 50;
        let problem = sgmcmc::Posterior::build(&cfg, None).unwrap();
        let test = problem.test.as_ref().unwrap();
        let zeros = vec![0.0; problem.dim];
        let mean_only = test.predictive_rmse(&zeros).unwrap();
        let map_rmse = test.predictive_rmse(&problem.map).unwrap();
        let map_train = problem.train.predictive_rmse(&problem.map).unwrap();
        let rep = tune::run_on(&cfg, &problem, &mut |_| {}, &AtomicBool::new(false)).unwrap();
        let best = rep.best.unwrap();
        let d = problem.dim;
        let s = best.samples.len() / d;
        let last = &best.samples[(s - 1) * d..];
        let last_rmse = test.predictive_rmse(last).unwrap();
        // posterior-mean theta of the kept samples (factor averages: not a prediction average)
        println!("  kept samples {s}; RMSE of the last sample alone {last_rmse:.4}; score {:.3}", best.score);
        println!("{users}x{items}, {ratings} ratings (true latent 20), model latent {latent}: test RMSE mean predictor {mean_only:.4}, MAP {map_rmse:.4} (train {map_train:.4}), chosen arm h={:.1e} batch {:?}: {:.4}",
            best.step, best.batch, best.test_rmse.unwrap());
    }
}
