//! The round executor (argmin's `Executor` role): runs any experiment made of rounds to its end, one round at a
//! time, and owns what every such run shares: the stop flag between rounds, saving the run's state after every
//! round (a checkpoint) and continuing a run from a saved state (resume).
//!
//! A kind describes one round of its run as a [`RoundRun`] (for an SG-MCMC tuning run, tune's and each tuner of
//! compare's: ask the tuner, run the arms' chains in chunks, score them, tell the tuner,
//! [`crate::experiments::sgmcmc::tuning`]; for a bandit run: every repeat's algorithms ask, pull and are told for
//! a chunk of rounds; for a step-size run: the fixed steps, then one GP-UCB window); its state between
//! two rounds is a typed, serde value ([`RoundRun::State`]) holding everything the rest of the run depends on
//! (the tuner's answers so far, every RNG's stream position, the arms' chains and sample stores, the report's
//! parts), so that a run stopped after round k and resumed gives the report of a run never stopped, bit for bit
//! (timings aside).

use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};

/// One experiment run made of rounds.
pub trait RoundRun {
    /// The kind's progress events.
    type Event;
    /// The run's state between two rounds (what a checkpoint saves).
    type State: Serialize + DeserializeOwned;
    /// The run's report.
    type Output;

    /// Runs the next round, emitting its events; `Ok(false)` when no round was left. `cancel` is checked between
    /// (and within) the round's chunks of work: then `Error::Cancelled`.
    fn round(&mut self, observer: &mut dyn FnMut(&Self::Event), cancel: &AtomicBool) -> Result<bool>;
    /// Rounds completed so far (with the ones before a resume).
    fn rounds_done(&self) -> usize;
    /// The state after the last completed round.
    fn state(&self) -> Self::State;
    /// The report, once [`RoundRun::round`] returned `false`.
    fn finish(self, observer: &mut dyn FnMut(&Self::Event)) -> Result<Self::Output>;
}

/// Called with `(rounds done, state)` after every round; an error from it ends the run with that error.
pub type OnRound<'a> = &'a mut dyn FnMut(usize, serde_json::Value) -> Result<()>;

/// Called with each [`Checkpoint`] of a run (the caller writes it); an error from it ends the run with that error.
pub type OnCheckpoint<'a> = &'a mut dyn FnMut(&Checkpoint) -> Result<()>;

/// What a caller asks of a run made of rounds besides running it: continue from a saved state, save the state
/// after every round. [`Rounds::default`] asks neither.
#[derive(Default)]
pub struct Rounds<'a> {
    /// The state to continue from (a [`RoundRun::State`] as JSON).
    pub resume: Option<serde_json::Value>,
    /// Called after every round with the state.
    pub checkpoint: Option<OnRound<'a>>,
}

impl<'a> Rounds<'a> {
    /// True when the caller resumes or saves: a kind that cannot must say so rather than ignore it.
    pub fn is_used(&self) -> bool {
        self.resume.is_some() || self.checkpoint.is_some()
    }

    /// The state to resume from, read as `S` (a state written for another kind or version is an error).
    pub fn take_resume<S: DeserializeOwned>(&mut self) -> Result<Option<S>> {
        self.resume
            .take()
            .map(|v| serde_json::from_value(v).map_err(|e| Error::config(format!("the checkpoint's run state: {e}"))))
            .transpose()
    }
}

/// Serialises a run state (its floats are saved exactly; see [`crate::exact`]).
pub fn state_value<S: Serialize>(state: &S) -> Result<serde_json::Value> {
    serde_json::to_value(state).map_err(|e| Error::numerical(format!("saving the run state: {e}")))
}

/// Runs `run` to its end: a round at a time, the stop flag looked at before each, the state handed to
/// `checkpoint` after each; then the report.
pub fn execute<R: RoundRun>(
    mut run: R,
    observer: &mut dyn FnMut(&R::Event),
    cancel: &AtomicBool,
    checkpoint: Option<OnRound<'_>>,
) -> Result<R::Output> {
    let mut checkpoint = checkpoint;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        if !run.round(observer, cancel)? {
            break;
        }
        if let Some(save) = checkpoint.as_mut() {
            save(run.rounds_done(), state_value(&run.state())?)?;
        }
    }
    run.finish(observer)
}

/// The format of a checkpoint file ([`Checkpoint::format`]).
pub const CHECKPOINT_FORMAT: u32 = 1;

/// A checkpoint file: the config that runs (every default filled in, with its `kind`), the rounds done and
/// the run's state. `tunelab run --resume FILE` and `tunelab.run(resume=...)` continue it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    pub format: u32,
    /// The tunelab version that wrote it: a run resumes only with the same version (the state of a chain or a
    /// tuner is that version's).
    pub version: String,
    pub config: serde_json::Value,
    /// Rounds completed (of the kind's own run; a comparison counts every tuner's rounds).
    pub rounds: usize,
    pub state: serde_json::Value,
}

impl Checkpoint {
    /// Reads a checkpoint (JSON), refusing another format or version.
    pub fn from_json(text: &str) -> Result<Self> {
        let c: Checkpoint =
            serde_json::from_str(text).map_err(|e| Error::config(format!("not a tunelab checkpoint: {e}")))?;
        if c.format != CHECKPOINT_FORMAT {
            return Err(Error::config(format!(
                "checkpoint format {} (this tunelab reads format {CHECKPOINT_FORMAT})",
                c.format
            )));
        }
        if c.version != env!("CARGO_PKG_VERSION") {
            return Err(Error::config(format!(
                "the checkpoint was written by tunelab {}; this is {}: resume it with that version",
                c.version,
                env!("CARGO_PKG_VERSION")
            )));
        }
        Ok(c)
    }

    /// The config the checkpointed run runs.
    pub fn experiment_config(&self) -> Result<super::ExperimentConfig> {
        let mut v = self.config.clone();
        super::ExperimentConfig::from_value(&mut v, None)
    }

    /// Reads a checkpoint file.
    pub fn read(path: &str) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("cannot read {path}: {e}")))?;
        Self::from_json(&text).map_err(|e| match e {
            Error::Config(m) => Error::Config(format!("{path}: {m}")),
            e => e,
        })
    }

    /// Writes the checkpoint atomically: to `PATH.tmp`, flushed to the disk, then renamed over `PATH`, so the
    /// file always holds a whole checkpoint (the previous round's until the rename).
    pub fn write(&self, path: &str) -> Result<()> {
        use std::io::Write;
        let tmp = format!("{path}.tmp");
        let io = |e: std::io::Error| Error::Io(format!("cannot write {tmp}: {e}"));
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
        serde_json::to_writer(&mut w, self).map_err(|e| Error::Io(format!("cannot write {tmp}: {e}")))?;
        w.flush().map_err(io)?;
        w.get_ref().sync_all().map_err(io)?;
        std::fs::rename(&tmp, path).map_err(|e| Error::Io(format!("cannot write {path}: {e}")))
    }
}
