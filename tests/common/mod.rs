//! Helpers shared by the integration tests (tests/core and tests/soak.rs).

pub mod contract;
pub mod fd;
pub mod gaussian;
pub mod small_configs;
