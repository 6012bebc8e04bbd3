//! The terminal text of an SG-MCMC tuning run's events (tune's, and each tuner's inside a comparison).

use super::Event;
use crate::experiments::text::plural;

/// `round 2: 3 arms`, `round 2 done, 1 arm left`.
pub fn round_message(e: &Event) -> Option<String> {
    match e {
        Event::RoundStarted { round, arms, .. } => Some(format!("round {round}: {}", plural(arms.len(), "arm"))),
        Event::RoundFinished { round, survivors } => {
            Some(format!("round {round} done, {} left", plural(survivors.len(), "arm")))
        }
        _ => None,
    }
}

/// True for the end of a round.
pub fn ends_round(e: &Event) -> bool {
    matches!(e, Event::RoundFinished { .. })
}
