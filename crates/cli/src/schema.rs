//! `tunelab schema`: writes the JSON Schemas and docs/config.md generated from the core's types
//! (`tunelab::schema`), or with `--check` says which files on disk differ from them (the test command runs it).

use std::path::PathBuf;
use tunelab::{Error, Result};

#[derive(clap::Args)]
pub struct SchemaArgs {
    /// The repository (or any folder) to write `schemas/*.schema.json` and `docs/config.md` under.
    #[arg(long, default_value = ".")]
    pub out: PathBuf,
    /// Write nothing; exit 1 when a file under --out is missing or differs from what would be written.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: &SchemaArgs) -> Result<i32> {
    let mut stale = Vec::new();
    for (rel, text) in tunelab::schema::files() {
        let path = args.out.join(&rel);
        if args.check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(rel);
            }
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::Io(format!("{}: {e}", dir.display())))?;
        }
        std::fs::write(&path, text).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    if stale.is_empty() {
        if args.check {
            println!("schemas and docs/config.md are up to date");
        }
        Ok(0)
    } else {
        eprintln!(
            "stale (generated from the Rust types; run `cargo run -p tunelab-cli -- schema` and commit): {}",
            stale.join(", ")
        );
        Ok(1)
    }
}
