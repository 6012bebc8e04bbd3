//! Small configs of every experiment kind, shared by tests/core/experiments/experiment.rs and tests/soak.rs.

use tunelab::experiments::{ExperimentConfig, Kind};

/// Small configs of every kind (seconds each in the test profile).
pub fn small(kind: Kind) -> ExperimentConfig {
    let text = match kind {
        Kind::Tune => {
            r#"{"kind":"tune","data":{"source":"none","test_fraction":0},"model":{"kind":"gaussian","d":2},
            "sampler":{"kind":"sgld"},"arms":{"log10_step":{"from":-3,"to":-1,"by":1},"batch":[1]},
            "tuner":{"kind":"mamba","eta":3},"budget":{"iterations":600},"metric":{"kind":"ksd","max_samples":100},
            "thin":2,"start":"zero","seed":5}"#
        }
        Kind::Compare => {
            r#"{"kind":"compare","data":{"source":"simulate","n":300,"d":2,"seed":1,"test_fraction":0.2},
            "model":{"kind":"logistic"},"sampler":{"kind":"sgld"},"arms":{"log10_step":{"from":-4,"to":-2,"by":1},
            "batch":[0.1]},"budget":{"grad_evals":20000},"metric":{"kind":"ksd","max_samples":100},"thin":2,"seed":9,
            "reference_samples":0}"#
        }
        Kind::Bandit => {
            r#"{"kind":"bandit","problem":{"kind":"bernoulli","means":[0.2,0.5,0.8]},
            "algorithms":[{"kind":"ttts"},{"kind":"successive-halving"}],"rounds":60,"repeats":3,"seed":2,"checkpoints":6}"#
        }
        Kind::Hoag => {
            r#"{"kind":"hoag","problem":"logreg","data":{"source":"simulate","n":90,"d":4,"seed":3},
            "methods":[{"kind":"hoag","tolerance":"cubic"},{"kind":"grid","points":5}],
            "budget":{"cost":150,"max_iter":8},"landscape_points":9,"seed":5}"#
        }
        Kind::LrSchedule => {
            r#"{"kind":"lr-schedule","problem":{"kind":"noisy-quadratic","dim":5,"noise":1.0},"intervals":3,
            "steps_per_interval":8,"records_per_interval":2,"batch":4,"lr_bounds":[0.001,1.0],"constant":2,
            "decay_starts":1,"decay_factors":[0.1],"dynamic":{"enabled":true,"runs":2,"candidates":5,"band_samples":20},"seed":3}"#
        }
        Kind::StepSize => {
            r#"{"kind":"step-size","data":{"n":120,"d":2},"sampler":{"kind":"sgld","batch":0.2},
            "log10_step":[-5.0,-2.0],"windows":5,"window_iters":40,"fixed_log10_steps":[-4.0,-3.0],"seed":4}"#
        }
        Kind::Tvo => {
            r#"{"kind":"tvo","epochs":2,"window":1,"d":2,"test_size":100,"eval_size":30,"curve_k":3,"iwae_k":5,
            "hidden":[4],"latent":2,"methods":["gp-ucb","linear"],"seed":6}"#
        }
    };
    ExperimentConfig::from_json(text, None).unwrap_or_else(|e| panic!("{kind:?}: {e}"))
}
