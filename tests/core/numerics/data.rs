//! Data loading, validation errors (each names its line and column), standardisation, splits,
//! simulators, the shipped digits and matrix CSV files.

use tunelab::data::*;
use tunelab::rng::stream;
use tunelab::Error;

fn opts() -> CsvOptions {
    CsvOptions::default()
}

fn data_err(text: &str, o: &CsvOptions) -> String {
    match parse_csv(text, o) {
        Err(Error::Data(m)) => m,
        other => panic!("expected a data error for {text:?}, got {other:?}"),
    }
}

#[test]
fn parses_a_good_file_with_the_label_anywhere() {
    let text = "\u{feff}a, y ,\"b\"\r\n1,0,2.5\r\n-3e-1,1,4\r\n\r\n\n";
    let ds = parse_csv(text, &opts()).unwrap();
    assert_eq!((ds.n, ds.p), (2, 2));
    assert_eq!(ds.x, vec![1.0, 2.5, -0.3, 4.0]);
    assert_eq!(ds.y, vec![0.0, 1.0]);
    assert_eq!(ds.feature_names, vec!["a", "b"]);
    assert_eq!(ds.label_name, "y");
    assert_eq!(ds.source_lines, vec![2, 3]);
    let o = CsvOptions { label: "a".into(), standardize: false };
    let ds = parse_csv(text, &o).unwrap();
    assert_eq!(ds.y, vec![1.0, -0.3]);
    assert_eq!(ds.feature_names, vec!["y", "b"]);
    // Round trip through write_csv.
    let back = parse_csv(&ds.to_csv_string(), &o).unwrap();
    assert_eq!((back.x, back.y), (ds.x.clone(), ds.y.clone()));
}

#[test]
fn every_bad_file_names_its_line_and_column() {
    // Ragged rows: too few and too many cells.
    let m = data_err("a,b,y\n1,2,0\n1,2\n", &opts());
    assert!(m.contains("line 3") && m.contains("expected 3") && m.contains("found 2") && m.contains("\"y\""), "{m}");
    let m = data_err("a,b,y\n1,2,0\n1,2,1\n1,2,1,5\n", &opts());
    assert!(m.contains("line 4") && m.contains("found 4") && m.contains("extra"), "{m}");
    // Non-numeric cell.
    let m = data_err("a,b,y\n1,2,0\n1,abc,1\n", &opts());
    assert!(m.contains("line 3") && m.contains("column \"b\"") && m.contains("\"abc\" is not a number"), "{m}");
    // Empty cell.
    let m = data_err("a,b,y\n1,,0\n1,2,1\n", &opts());
    assert!(m.contains("line 2") && m.contains("column \"b\"") && m.contains("empty"), "{m}");
    // NaN and Inf, in a feature and in the label.
    for bad in ["NaN", "nan", "inf", "-Infinity"] {
        let m = data_err(&format!("a,b,y\n1,2,0\n1,{bad},1\n"), &opts());
        assert!(m.contains("line 3") && m.contains("column \"b\"") && m.contains("not finite"), "{m}");
    }
    let m = data_err("a,b,y\n1,2,0\n1,2,1\n1,2,NaN\n", &opts());
    assert!(m.contains("line 4") && m.contains("column \"y\"") && m.contains("not finite"), "{m}");
    // Missing label column: lists the columns found.
    let m = data_err("a,b,label\n1,2,0\n1,2,1\n", &opts());
    assert!(m.contains("no label column \"y\"") && m.contains("a, b, label"), "{m}");
    // Fewer than 2 rows.
    let m = data_err("a,b,y\n1,2,0\n", &opts());
    assert!(m.contains("1 data row") && m.contains("at least 2"), "{m}");
    let m = data_err("a,b,y\n", &opts());
    assert!(m.contains("0 data row"), "{m}");
    // Empty file (also only blank lines).
    for text in ["", "\n\n", "\u{feff}"] {
        let m = data_err(text, &opts());
        assert!(m.contains("empty"), "{m}");
    }
    // A blank line between rows.
    let m = data_err("a,y\n1,0\n\n2,1\n", &opts());
    assert!(m.contains("line 3") && m.contains("empty"), "{m}");
    // Header problems.
    let m = data_err("a,a,y\n1,2,0\n1,2,1\n", &opts());
    assert!(m.contains("line 1") && m.contains("\"a\" appears twice"), "{m}");
    let m = data_err("a,,y\n1,2,0\n1,2,1\n", &opts());
    assert!(m.contains("line 1") && m.contains("empty"), "{m}");
    let m = data_err("y\n1\n0\n", &opts());
    assert!(m.contains("feature"), "{m}");
    let m = data_err("a,y\n\"1,0\n2,1\n", &opts());
    assert!(m.contains("line 2") && m.contains("quoted"), "{m}");
}

#[test]
fn label_checks_name_the_line_and_column_even_after_a_split() {
    let ds = parse_csv("a,y\n1,0\n2,1\n3,1\n4,0.5\n5,0\n", &opts()).unwrap();
    let m = ds.check_binary_labels().unwrap_err().to_string();
    assert!(m.contains("line 5") && m.contains("\"y\"") && m.contains("0.5"), "{m}");
    let m = ds.check_class_labels(3).unwrap_err().to_string();
    assert!(m.contains("line 5"), "{m}");
    let (train, test) = ds.split(0.4, &mut stream(1, 0)).unwrap();
    let holder = if train.y.contains(&0.5) { train } else { test };
    let m = holder.check_binary_labels().unwrap_err().to_string();
    assert!(m.contains("line 5"), "{m}");
    let ds = parse_csv("a,y\n1,0\n2,3\n3,1\n", &opts()).unwrap();
    let m = ds.check_class_labels(3).unwrap_err().to_string();
    assert!(m.contains("line 3") && m.contains("0..2"), "{m}");
    assert!(ds.check_class_labels(4).is_ok());
    // Generated data names the data row instead.
    let g = Dataset::new(vec![1.0, 2.0], vec![0.0, 2.0], 1, None, "y").unwrap();
    let m = g.check_binary_labels().unwrap_err().to_string();
    assert!(m.contains("data row 2"), "{m}");
    assert!(Dataset::new(vec![1.0, f64::NAN], vec![0.0, 1.0], 1, None, "y").is_err());
    assert!(Dataset::new(vec![1.0], vec![0.0, 1.0], 1, None, "y").is_err());
}

#[test]
fn standardize_centres_scales_and_keeps_constant_columns_finite() {
    let text = "a,c,b,y\n1,5,10,0\n2,5,20,1\n3,5,60,0\n";
    let mut ds = parse_csv(text, &opts()).unwrap();
    let st = ds.standardize();
    assert_eq!(st.mean, vec![2.0, 5.0, 30.0]);
    assert!((st.sd[0] - (2.0f64 / 3.0).sqrt()).abs() < 1e-15);
    assert_eq!(st.sd[1], 1.0);
    for j in 0..3 {
        let col: Vec<f64> = (0..3).map(|i| ds.row(i)[j]).collect();
        let mean: f64 = col.iter().sum::<f64>() / 3.0;
        let var: f64 = col.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 3.0;
        assert!(mean.abs() < 1e-15);
        assert!(if j == 1 { var == 0.0 } else { (var - 1.0).abs() < 1e-12 }, "column {j} var {var}");
    }
    assert!(ds.x.iter().all(|v| v.is_finite()));
    // The option does the same; stats apply to another set.
    let ds2 = parse_csv(text, &CsvOptions { label: "y".into(), standardize: true }).unwrap();
    assert_eq!(ds2.x, ds.x);
    let mut other = parse_csv(text, &opts()).unwrap();
    st.apply(&mut other).unwrap();
    assert_eq!(other.x, ds.x);
}

#[test]
fn split_is_seeded_disjoint_and_complete() {
    let (ds, _) = simulate_logistic(101, 2, &mut stream(5, 0)).unwrap();
    let (a1, b1) = ds.split(0.2, &mut stream(9, 1)).unwrap();
    let (a2, b2) = ds.split(0.2, &mut stream(9, 1)).unwrap();
    let (_, b3) = ds.split(0.2, &mut stream(9, 2)).unwrap();
    assert_eq!((a1.clone(), b1.clone()), (a2, b2));
    assert_ne!(b1.x, b3.x);
    assert_eq!((a1.n, b1.n), (81, 20));
    // Disjoint and complete: every row appears exactly once (rows identified by their features).
    let mut rows: Vec<Vec<u64>> =
        a1.x.chunks(2).chain(b1.x.chunks(2)).map(|r| r.iter().map(|v| v.to_bits()).collect()).collect();
    let mut orig: Vec<Vec<u64>> = ds.x.chunks(2).map(|r| r.iter().map(|v| v.to_bits()).collect()).collect();
    rows.sort();
    orig.sort();
    assert_eq!(rows, orig);
    for f in [0.0, 1.0, -0.1, f64::NAN] {
        assert!(ds.split(f, &mut stream(1, 1)).is_err());
    }
    // Tiny sets keep both parts non-empty.
    let (a, b) = ds.subset(&[0, 1]).split(0.01, &mut stream(1, 1)).unwrap();
    assert_eq!((a.n, b.n), (1, 1));
}

#[test]
fn simulate_logistic_is_seeded_and_has_the_right_label_law() {
    let (a, ta) = simulate_logistic(20_000, 4, &mut stream(7, 0)).unwrap();
    let (b, tb) = simulate_logistic(20_000, 4, &mut stream(7, 0)).unwrap();
    let (c, _) = simulate_logistic(20_000, 4, &mut stream(8, 0)).unwrap();
    assert_eq!((a.clone(), ta.clone()), (b, tb));
    assert_ne!(a.x, c.x);
    assert_eq!(a.feature_names, vec!["x1", "x2", "x3", "x4"]);
    a.check_binary_labels().unwrap();
    // y_i ~ Bernoulli(sigmoid(x_i . theta)): the label frequency matches the mean probability within
    // 4 standard errors, overall and on the rows where the model is confident.
    let probs: Vec<f64> = (0..a.n)
        .map(|i| {
            let z: f64 = a.row(i).iter().zip(&ta).map(|(x, t)| x * t).sum();
            1.0 / (1.0 + (-z).exp())
        })
        .collect();
    for (lo, hi) in [(0.0, 1.0), (0.0, 0.2), (0.8, 1.0), (0.4, 0.6)] {
        let sel: Vec<usize> = (0..a.n).filter(|&i| probs[i] >= lo && probs[i] < hi).collect();
        assert!(sel.len() > 500);
        let freq: f64 = sel.iter().map(|&i| a.y[i]).sum::<f64>();
        let expect: f64 = sel.iter().map(|&i| probs[i]).sum();
        let sd: f64 = sel.iter().map(|&i| probs[i] * (1.0 - probs[i])).sum::<f64>().sqrt();
        assert!((freq - expect).abs() < 4.0 * sd, "band [{lo},{hi}): {freq} vs {expect} +- {sd}");
    }
    // Features are standard normal.
    let mean = a.x.iter().sum::<f64>() / a.x.len() as f64;
    let var = a.x.iter().map(|v| v * v).sum::<f64>() / a.x.len() as f64;
    assert!(mean.abs() < 0.02 && (var - 1.0).abs() < 0.03, "{mean} {var}");
    assert!(simulate_logistic(1, 3, &mut stream(1, 0)).is_err());
    assert!(simulate_logistic(10, 0, &mut stream(1, 0)).is_err());
}

#[test]
fn simulate_linear_matches_its_model() {
    let (ds, theta) = simulate_linear(5000, 3, 0.1, &mut stream(2, 0)).unwrap();
    let resid: Vec<f64> =
        (0..ds.n).map(|i| ds.y[i] - ds.row(i).iter().zip(&theta).map(|(x, t)| x * t).sum::<f64>()).collect();
    let sd = (resid.iter().map(|r| r * r).sum::<f64>() / ds.n as f64).sqrt();
    assert!((sd - 0.1).abs() < 0.005, "{sd}");
    assert!(simulate_linear(10, 2, -1.0, &mut stream(1, 0)).is_err());
}

#[test]
fn digits_has_1797_rows_64_features_and_10_classes() {
    let d = digits().unwrap();
    assert_eq!((d.n, d.p), (1797, 64));
    assert_eq!(d.feature_names[0], "p0");
    assert_eq!(d.feature_names[63], "p63");
    d.check_class_labels(10).unwrap();
    assert_eq!(d.n_classes(), 10);
    assert!(d.x.iter().all(|&v| (0.0..=16.0).contains(&v) && v.fract() == 0.0));
    // Every class is present with roughly 180 images.
    for c in 0..10 {
        let k = d.y.iter().filter(|&&v| v == c as f64).count();
        assert!((170..=190).contains(&k), "class {c}: {k}");
    }
}

#[test]
fn matrix_csv_round_trips_with_and_without_header() {
    let vals = vec![1.0, -2.5e-300, 3.0 / 7.0, 1e17, 0.1, -0.0];
    let s = matrix_csv_string(&vals, 3, None);
    let (v, n, d) = read_matrix_csv(&s).unwrap();
    assert_eq!((n, d), (2, 3));
    assert_eq!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), vals.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    let names: Vec<String> = ["t1", "t2", "t3"].iter().map(|s| s.to_string()).collect();
    let s = matrix_csv_string(&vals, 3, Some(&names));
    assert!(s.starts_with("t1,t2,t3\n"));
    assert_eq!(read_matrix_csv(&s).unwrap(), (vals.clone(), 2, 3));
    let mut buf = Vec::new();
    write_matrix_csv(&mut buf, &vals, 2, None).unwrap();
    assert_eq!(read_matrix_csv(std::str::from_utf8(&buf).unwrap()).unwrap().1, 3);
}

#[test]
fn matrix_csv_errors_name_line_and_column() {
    let m = read_matrix_csv("a,b\n1,2\n3\n").unwrap_err().to_string();
    assert!(m.contains("line 3") && m.contains("\"b\""), "{m}");
    let m = read_matrix_csv("1,2\n3,x\n").unwrap_err().to_string();
    assert!(m.contains("line 2") && m.contains("column \"2\"") && m.contains("\"x\""), "{m}");
    let m = read_matrix_csv("a,b\n1,inf\n").unwrap_err().to_string();
    assert!(m.contains("line 2") && m.contains("column \"b\"") && m.contains("not finite"), "{m}");
    let m = read_matrix_csv("").unwrap_err().to_string();
    assert!(m.contains("empty"), "{m}");
    let m = read_matrix_csv("a,b\n").unwrap_err().to_string();
    assert!(m.contains("no data rows"), "{m}");
}

#[test]
fn read_csv_reports_missing_files_and_prefixes_the_path() {
    let e = read_csv("/nonexistent/file.csv", &opts()).unwrap_err();
    assert!(matches!(e, Error::Io(_)) && e.to_string().contains("/nonexistent/file.csv"));
    let dir = std::env::temp_dir().join(format!("tunelab-data-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.csv");
    std::fs::write(&p, "a,y\n1,0\nz,1\n").unwrap();
    let m = read_csv(&p, &opts()).unwrap_err().to_string();
    assert!(m.contains("bad.csv") && m.contains("line 3") && m.contains("column \"a\""), "{m}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shuffled_parts_recoding_and_train_standardisation() {
    let x: Vec<f64> = (0..30).map(|v| v as f64).collect();
    let y: Vec<f64> = (0..10).map(|i| if i % 3 == 0 { 7.0 } else { 2.0 }).collect();
    let ds = Dataset::new(x, y, 3, None, "y").unwrap();
    let parts = ds.shuffled_parts(&[3, 6], &mut stream(5, 1)).unwrap();
    assert_eq!(parts.iter().map(|p| p.n).collect::<Vec<_>>(), vec![3, 3, 4]);
    // every row exactly once, rows intact, same seed same rows
    let mut firsts: Vec<f64> = parts.iter().flat_map(|p| (0..p.n).map(move |i| p.row(i)[0])).collect();
    assert!(parts.iter().all(|p| (0..p.n).all(|i| p.row(i)[1] == p.row(i)[0] + 1.0)));
    assert_eq!(parts, ds.shuffled_parts(&[3, 6], &mut stream(5, 1)).unwrap());
    firsts.sort_by(|a, b| a.total_cmp(b));
    assert_eq!(firsts, (0..10).map(|i| 3.0 * i as f64).collect::<Vec<_>>());
    assert!(ds.shuffled_parts(&[6, 3], &mut stream(5, 1)).is_err());

    let mut r = ds.clone();
    r.recode_two_labels(-1.0, 1.0).unwrap();
    assert!(r.y.iter().zip(&ds.y).all(|(a, b)| *a == if *b == 2.0 { -1.0 } else { 1.0 }));
    let mut three = ds.clone();
    three.y[0] = 5.0;
    assert!(
        matches!(three.recode_two_labels(0.0, 1.0), Err(Error::Data(m)) if m.contains("exactly two values, found 3"))
    );

    let mut parts = parts;
    let st = Dataset::standardize_by_first(&mut parts).unwrap();
    let train = &parts[0];
    let mean0 = (0..train.n).map(|i| train.row(i)[0]).sum::<f64>() / train.n as f64;
    assert!(mean0.abs() < 1e-12);
    let raw = ds.shuffled_parts(&[3, 6], &mut stream(5, 1)).unwrap();
    assert!((parts[2].row(0)[0] - (raw[2].row(0)[0] - st.mean[0]) / st.sd[0]).abs() < 1e-12);
}
