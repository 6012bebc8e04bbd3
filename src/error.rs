//! Typed errors. No user input (file, config, URL) may cause a panic: it becomes one of these.

/// Every fallible operation in tunelab returns this error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A problem with a data file, naming the row (1-based, header = row 1) and column where possible.
    #[error("data error: {0}")]
    Data(String),
    /// A configuration value is missing, out of range or inconsistent.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A numerical failure (failed Cholesky, non-finite values) that could not be recovered from.
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// The run was cancelled by the user.
    #[error("cancelled")]
    Cancelled,
    /// Reading or writing a file failed.
    #[error("I/O error: {0}")]
    Io(String),
}

impl Error {
    pub fn data(msg: impl Into<String>) -> Self {
        Error::Data(msg.into())
    }
    pub fn config(msg: impl Into<String>) -> Self {
        Error::Config(msg.into())
    }
    pub fn numerical(msg: impl Into<String>) -> Self {
        Error::Numerical(msg.into())
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::Config(e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, Error>;
