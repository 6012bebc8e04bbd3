//! Algorithm 1 of Nguyen, Masrani, Brekelmans, Osborne & Wood (NeurIPS 2020): a VAE trained by the TVO while
//! GP-UCB chooses the integration schedule every `window` epochs, against the schedules of their section 5.
//!
//! Schedule convention: `d` is the number of terms of the left Riemann sum; the points are
//! `0 = beta_0 < beta_1 <= ... <= beta_{d-1}` with right end `beta_d = 1`, so `beta_0 = 0` keeps the ELBO term
//! and the bandit chooses the `d - 1` free points (a sorted vector in `beta_box^{d-1}`, by default the paper's
//! `[0.05, 0.95]`, Sec. 5). Windows follow `TvoConfig.window` (by default Sec. 5's growing rule with early
//! updates), each run on its own clock.
//! Reward of window `t` (their eq. 7): the change of the log-evidence estimate over the window,
//! `r_t = L(theta_t) - L(theta_{t-1})`, where `L` is the TVO bound with a fixed fine linear schedule of 50 points
//! on a fixed subset of the training data with fixed draws (evaluation decoupled from the training schedule).

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::vae::{all_finite, Likelihood, Vae};
use crate::bandit::gpucb::GpUcb;
use crate::bandit::ArmSpace;
use crate::bandit::{Arm, BanditAlgo};
use crate::math::ln;
use crate::optim::Adam;
use crate::rng::{stream, substream, Rng};
use crate::{Error, Result};
use rand::RngExt;

use super::config::*;
use super::data::*;
use super::report::*;
use super::schedules::*;
use super::training::*;

struct Runner {
    method: TvoMethod,
    repeat: usize,
    vae: Vae,
    adam: Adam,
    rng: Rng,
    arm_rng: Rng,
    gp: Option<GpUcb>,
    bound: f64,
    eta: Vec<f64>,
    /// The schedule of the current window.
    current: Vec<f64>,
    trace: RunTrace,
    /// Index of the current window (bandit rounds completed) and epochs trained in it.
    k: usize,
    in_window: usize,
    /// Next entry of the snapshot epochs to take.
    next_snap: usize,
}

fn free_points(space_dim: usize, schedule: &[f64]) -> Vec<f64> {
    schedule[1..=space_dim].to_vec()
}

impl Runner {
    fn schedule(&mut self, cfg: &TvoConfig, t: usize) -> Vec<f64> {
        let d = cfg.d;
        match self.method {
            TvoMethod::Linear => linear_schedule(d),
            TvoMethod::LogUniform => log_uniform_schedule(d, cfg.log_beta1),
            TvoMethod::Moments => moments_schedule(d, &self.eta),
            TvoMethod::Random => {
                let [lo, hi] = cfg.beta_box;
                let mut u: Vec<f64> = (0..d - 1).map(|_| lo + (hi - lo) * self.arm_rng.random::<f64>()).collect();
                u.sort_by(|a, b| a.total_cmp(b));
                std::iter::once(0.0).chain(u).collect()
            }
            _ => {
                let gp = self.gp.as_mut().expect("GP methods have a GP");
                match gp.ask(t, &mut self.arm_rng) {
                    Arm::Point(mut u) => {
                        u.sort_by(|a, b| a.total_cmp(b));
                        std::iter::once(0.0).chain(u).collect()
                    }
                    _ => linear_schedule(d),
                }
            }
        }
    }

    /// Chooses the schedule of window `t` (nothing for a diverged run).
    fn begin_window(&mut self, cfg: &TvoConfig, t: usize) {
        if !self.trace.diverged {
            self.current = self.schedule(cfg, t);
        }
    }

    /// One epoch of the current window; `false` if it stopped on the flag.
    fn epoch(&mut self, cfg: &TvoConfig, (imgs, ep, seed): (&Images, usize, u64), stop: &AtomicBool) -> bool {
        if self.trace.diverged {
            return true;
        }
        match train_epoch(
            &mut self.vae,
            (&mut self.adam, cfg.lr),
            (imgs, ep as u64, seed),
            &self.current,
            (cfg.particles, cfg.batch),
            &mut self.rng,
            stop,
        ) {
            EpochEnd::Done(_) => true,
            EpochEnd::Diverged => {
                self.trace.diverged = true;
                true
            }
            EpochEnd::Stopped => false,
        }
    }

    /// After epoch `ep` (1-based, of the whole run): `None` while the window goes on; when it ends (by the window
    /// rule, or at the run's last epoch) the window's record (`None` for a diverged run), and the next window's
    /// schedule chosen unless this was the last epoch.
    #[allow(clippy::too_many_arguments)]
    fn after_epoch(
        &mut self,
        cfg: &TvoConfig,
        ep: usize,
        last: bool,
        snaps: &[usize],
        imgs: &Images,
        eval_x: &[f64],
        seed: u64,
    ) -> Option<Option<WindowRecord>> {
        self.in_window += 1;
        // Algorithm 1 line 2: the bound after every epoch when the early update needs it
        let evaluated = if !self.trace.diverged && cfg.window.evaluates_every_epoch() {
            Some(evaluate(&self.vae, eval_x, cfg.eval_particles, seed))
        } else {
            None
        };
        let change = evaluated.as_ref().map(|(b, _)| b - self.bound).filter(|c| c.is_finite());
        if !(last || cfg.window.ends(self.k, self.in_window, change)) {
            return None;
        }
        let t = self.k;
        let rec = self.end_window(cfg, t, ep, snaps, imgs, evaluated, seed, eval_x);
        self.k += 1;
        self.in_window = 0;
        if !last {
            self.begin_window(cfg, self.k);
        }
        Some(rec)
    }

    /// Ends window `t` at epoch `ep`: the reward (eq. 7) told to the GP, the test curve point.
    #[allow(clippy::too_many_arguments)]
    fn end_window(
        &mut self,
        cfg: &TvoConfig,
        t: usize,
        ep: usize,
        snaps: &[usize],
        imgs: &Images,
        evaluated: Option<(f64, Vec<f64>)>,
        seed: u64,
        eval_x: &[f64],
    ) -> Option<WindowRecord> {
        if self.trace.diverged {
            return None;
        }
        let schedule = self.current.clone();
        let (bound, eta) = evaluated.unwrap_or_else(|| evaluate(&self.vae, eval_x, cfg.eval_particles, seed));
        if !bound.is_finite() || !all_finite(&eta) {
            self.trace.diverged = true;
            return None;
        }
        let reward = bound - self.bound;
        self.bound = bound;
        self.eta = eta;
        if let Some(gp) = self.gp.as_mut() {
            gp.tell(&Arm::Point(free_points(cfg.d - 1, &schedule)), reward);
        }
        let m = test_metrics(&self.vae, &imgs.test, cfg.curve_k, seed);
        let rec = WindowRecord {
            window: t,
            epoch: ep,
            schedule: schedule.clone(),
            reward,
            eval_bound: bound,
            test_log_px: m.log_px,
            test_kl: m.kl,
        };
        self.trace.windows.push(rec.clone());
        // one snapshot at the first window end at or after each snapshot epoch
        let mut due = false;
        while self.next_snap < snaps.len() && ep >= snaps[self.next_snap] {
            self.next_snap += 1;
            due = true;
        }
        if self.gp.is_some() && due {
            self.snapshot(cfg, t, ep, &schedule);
        }
        Some(rec)
    }

    fn snapshot(&mut self, cfg: &TvoConfig, t: usize, ep: usize, schedule: &[f64]) {
        let Some(gp) = self.gp.as_ref() else { return };
        let free = free_points(cfg.d - 1, schedule);
        let [lo, hi] = cfg.beta_box;
        let grid: Vec<f64> = (0..=40).map(|i| lo + (hi - lo) * i as f64 / 40.0).collect();
        let (mut mean, mut sd) = (Vec::new(), Vec::new());
        for &b in &grid {
            let mut u = free.clone();
            u[0] = b;
            match gp.posterior(&u, t + 1) {
                Some((m, s)) => {
                    mean.push(m);
                    sd.push(s);
                }
                None => return,
            }
        }
        let observed = self.trace.windows.iter().map(|w| (w.schedule[1], w.reward)).collect();
        self.trace.gp_snapshots.push(GpSnapshot { window: t, epoch: ep, grid, mean, sd, observed });
    }
}

/// Epochs after which the reward GP is recorded (about a quarter, half, three quarters and the end): for fixed
/// windows the ends of windows `ceil(nw f) - 1`, otherwise the first window end at or after `ceil(epochs f)`.
fn snapshot_epochs(cfg: &TvoConfig) -> Vec<usize> {
    let fr = [0.25, 0.5, 0.75, 1.0];
    let mut v: Vec<usize> = match cfg.window {
        WindowRule::Fixed(w) => fr.iter().map(|f| ((cfg.windows() as f64 * f).ceil() as usize).max(1) * w).collect(),
        WindowRule::Growing { .. } => fr.iter().map(|f| ((cfg.epochs as f64 * f).ceil() as usize).max(1)).collect(),
    };
    v.dedup();
    v
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 { (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt() } else { 0.0 };
    (m, sd)
}

/// Runs the experiment (config already validated).
pub fn run_checked(
    cfg: &TvoConfig,
    given: Option<&crate::data::Dataset>,
    on_event: &mut dyn FnMut(&TvoEvent),
    stop: &AtomicBool,
) -> Result<TvoReport> {
    let imgs = load_images(cfg, given)?;
    let p = imgs.p;
    let n_eval = cfg.eval_size.min(imgs.n_train());
    // the reward's fixed evaluation set (drawn once with stochastic binarisation)
    let eval_x = imgs.fixed_train(n_eval, cfg.seed);
    // mean training pixel -> decoder output bias
    let n_tr = imgs.n_train() as f64;
    let bias: Vec<f64> = (0..p)
        .map(|j| {
            let m = (0..imgs.n_train()).map(|i| imgs.train[i * p + j]).sum::<f64>() / n_tr;
            let m = m.clamp(0.01, 0.99);
            ln(m / (1.0 - m))
        })
        .collect();
    let mut runners: Vec<Runner> = Vec::new();
    for repeat in 0..cfg.repeats {
        let seed = cfg.seed.wrapping_add(repeat as u64);
        let mut init_rng = stream(seed, 0x7401);
        let mut vae = Vae::new(p, cfg.latent, &cfg.hidden, Likelihood::Bernoulli, &mut init_rng)?;
        vae.set_output_bias(&bias);
        let (bound, eta) = evaluate(&vae, &eval_x, cfg.eval_particles, seed);
        for (mi, &method) in cfg.methods.iter().enumerate() {
            // Sec. 5: "restrict beta in [0.05, 0.95]^d in all experiments" (`beta_box`)
            let [lo, hi] = cfg.beta_box;
            let space = ArmSpace::Continuous { lo: vec![lo; cfg.d - 1], hi: vec![hi; cfg.d - 1], ordered: true };
            let gp = match method.gp_options(&cfg.gp) {
                Some(o) => Some(GpUcb::new(&space, o, seed.wrapping_mul(31).wrapping_add(0x7403 + mi as u64))?),
                None => None,
            };
            let n = vae.params.len();
            runners.push(Runner {
                method,
                repeat,
                vae: vae.clone(),
                adam: Adam::new(n),
                rng: stream(seed, 0x7402),
                arm_rng: substream(seed, 0x7404, mi as u64),
                gp,
                bound,
                eta: eta.clone(),
                current: Vec::new(),
                trace: RunTrace {
                    method: method.name().into(),
                    repeat,
                    windows: Vec::new(),
                    integrand: Vec::new(),
                    final_metrics: None,
                    diverged: false,
                    gp_snapshots: Vec::new(),
                },
                k: 0,
                in_window: 0,
                next_snap: 0,
            });
        }
    }
    let nw = cfg.windows();
    on_event(&TvoEvent::Started {
        methods: cfg.methods.iter().map(|m| m.name().to_string()).collect(),
        repeats: cfg.repeats,
        windows: nw,
        n_train: imgs.n_train(),
        n_test: imgs.n_test(),
        pixels: p,
    });
    let snaps = snapshot_epochs(cfg);
    let total_epochs = cfg.trained_epochs();
    if total_epochs > 0 {
        runners.par_iter_mut().with_max_len(1).for_each(|r| r.begin_window(cfg, 0));
    }
    // every run trains epoch by epoch; each ends its windows by the window rule on its own objective (with fixed
    // windows all runs end them together). A stop cuts an epoch short between minibatches (the runs are
    // independent, so splitting the training into epochs changes no number)
    for ep in 1..=total_epochs {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let finished = runners
            .par_iter_mut()
            .with_max_len(1)
            .map(|r| {
                let seed = cfg.seed.wrapping_add(r.repeat as u64);
                r.epoch(cfg, (&imgs, ep, seed), stop)
            })
            .collect::<Vec<bool>>();
        if finished.contains(&false) || stop.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let last = ep == total_epochs;
        let ended: Vec<Option<Option<WindowRecord>>> = runners
            .par_iter_mut()
            .with_max_len(1)
            .map(|r| {
                let seed = cfg.seed.wrapping_add(r.repeat as u64);
                r.after_epoch(cfg, ep, last, &snaps, &imgs, &eval_x, seed)
            })
            .collect();
        if ended.iter().all(|e| e.is_none()) {
            let window = runners.iter().map(|r| r.k).min().unwrap_or(0);
            on_event(&TvoEvent::Epoch { window, epoch: ep });
            continue;
        }
        let window = runners.iter().zip(&ended).filter(|(_, e)| e.is_some()).map(|(r, _)| r.k - 1).max().unwrap_or(0);
        let runs = runners
            .iter()
            .zip(ended)
            .filter_map(|(r, e)| {
                e.map(|rec| WindowUpdate {
                    method: r.trace.method.clone(),
                    repeat: r.repeat,
                    record: rec,
                    integrand: r.eta.clone(),
                    diverged: r.trace.diverged,
                })
            })
            .collect();
        on_event(&TvoEvent::Window { window, epoch: ep, runs });
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Cancelled);
    }
    runners.par_iter_mut().with_max_len(1).for_each(|r| {
        r.trace.integrand = r.eta.clone();
        if !r.trace.diverged {
            let seed = cfg.seed.wrapping_add(r.repeat as u64);
            let m = test_metrics(&r.vae, &imgs.test, cfg.iwae_k, seed);
            r.trace.final_metrics = if m.log_px.is_finite() { Some(m) } else { None };
        }
    });
    let summary: Vec<MethodSummary> = cfg
        .methods
        .iter()
        .map(|m| {
            let rs: Vec<&Runner> = runners.iter().filter(|r| r.method == *m).collect();
            let fin: Vec<TestMetrics> = rs.iter().filter_map(|r| r.trace.final_metrics).collect();
            let lp: Vec<f64> = fin.iter().map(|f| f.log_px).collect();
            let kl: Vec<f64> = fin.iter().map(|f| f.kl).collect();
            let (lpm, lps) = mean_sd(&lp);
            let (klm, kls) = mean_sd(&kl);
            let b1: Vec<f64> = rs.iter().filter_map(|r| r.trace.windows.last().map(|w| w.schedule[1])).collect();
            MethodSummary {
                method: m.name().into(),
                log_px_mean: lpm,
                log_px_sd: lps,
                kl_mean: klm,
                kl_sd: kls,
                log_px: lp,
                kl,
                diverged: rs.iter().filter(|r| r.trace.diverged).count(),
                last_beta1: mean_sd(&b1).0,
            }
        })
        .collect();
    on_event(&TvoEvent::Done { summary: summary.clone() });
    Ok(TvoReport {
        n_train: imgs.n_train(),
        n_test: imgs.n_test(),
        pixels: p,
        d: cfg.d,
        iwae_k: cfg.iwae_k,
        runs: runners.into_iter().map(|r| r.trace).collect(),
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set stop flag cuts an epoch short before its next minibatch; a clear one trains through.
    #[test]
    fn train_epoch_reads_the_stop_flag_between_minibatches() {
        let imgs = binarised_split(&crate::data::digits().unwrap().x, 64, 8.0, 100, 1).unwrap();
        let x = Images { p: 64, train: imgs.train[..40 * 64].to_vec(), test: Vec::new(), grey: false };
        let mut vae = Vae::new(64, 2, &[8], Likelihood::Bernoulli, &mut stream(1, 1)).unwrap();
        let before = vae.params.clone();
        let mut adam = Adam::new(vae.params.len());
        let pts = linear_schedule(3);
        // one epoch of 40 images in minibatches of 10, with the stop flag set or not
        let epoch = |vae: &mut Vae, adam: &mut Adam, stop: bool| {
            train_epoch(vae, (adam, 1e-2), (&x, 1, 1), &pts, (4, 10), &mut stream(1, 2), &AtomicBool::new(stop))
        };
        let stopped = epoch(&mut vae, &mut adam, true);
        assert_eq!(stopped, EpochEnd::Stopped);
        assert_eq!(vae.params, before, "no minibatch step after the stop");
        assert_eq!(adam.steps(), 0);
        let done = epoch(&mut vae, &mut adam, false);
        assert!(matches!(done, EpochEnd::Done(b) if b.is_finite() && b < 0.0), "{done:?}");
        assert_eq!(adam.steps(), 4, "40 images in minibatches of 10");
        assert_ne!(vae.params, before);
    }
}
