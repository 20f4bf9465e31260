//! Runs DataFusion's own sqllogictest files — `json.slt` and the JSON parts
//! of `repartition_scan.slt`, `copy.slt`, `insert_to_external.slt` and
//! `dynamic_file.slt` — with jitson registered as the JSON format.
//!
//! (and those of `ddl.slt` and `explain_tree.slt`, the other two files with
//! JSON records). The files are those of the `datafusion-sqllogictest` 55.2.0 package from
//! crates.io (its `test_files/`, found through `cargo metadata`), unchanged.
//! Each file gets the context DataFusion's own harness gives it
//! (`TestContext::try_new_for_test_file`: four target partitions, the URL
//! table catalog for dynamic_file.slt), then `jitson_datafusion::register`;
//! the records run through DataFusion's own engine, normalizer and validator.
//! See docs/datafusion.md, "DataFusion's own tests".
//!
//! A test without libtest's harness, run by `cargo test --workspace`; alone:
//! `cargo test --workspace --test sqllogictest -- [OPTIONS] [FILE.slt ...]`
//! (or `scripts/sqllogictest.sh [OPTIONS] [FILE.slt ...]`), options:
//!
//! - `--test-files DIR`: the .slt files' directory (default: found through
//!   `cargo metadata`);
//! - `--keep`: keep the temporary directory (data and scratch files);
//! - `--verbose`: one line per record: where, and what became of it;
//! - `--no-mapping`: compare jitson's plans without the mapping (the records
//!   it maps then fail, showing the raw difference);
//! - `--datafusion`: the control run — DataFusion's own JSON format, jitson
//!   not registered (shows the harness and the generated data give
//!   DataFusion's expected results).
//!
//! Exit status 0 when no record failed.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use datafusion_sqllogictest::{
    DFColumnType, DataFusion, TestContext, df_value_validator, setup_scratch_dir, value_normalizer,
};
use indicatif::ProgressBar;
use jitson_datafusion::JitsonFormatFactory;
use sqllogictest::{Record, RecordOutput, TestErrorKind, strict_column_validator};

use jitson_sqllogictest::data;
use jitson_sqllogictest::db::JitsonDb;
use jitson_sqllogictest::select::{FILES, Part, Selection};

/// This test's name, as libtest's filters match it.
const NAME: &str = "sqllogictest";

/// The datafusion-sqllogictest version whose files run.
const DATAFUSION_SQLLOGICTEST: &str = "55.2.0";

/// One record that failed.
struct Failure {
    location: String,
    record: String,
    expected: String,
    actual: String,
    mapped: bool,
}

/// What the command line asked for.
#[derive(Default, Clone, Copy)]
struct Options {
    keep: bool,
    verbose: bool,
    no_mapping: bool,
    datafusion: bool,
}

/// The counts of one file.
#[derive(Default)]
struct Counts {
    passed: usize,
    mapped: usize,
    failed: usize,
    skipped: usize,
    not_json: usize,
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut test_files: Option<PathBuf> = None;
    let mut options = Options::default();
    let mut only: Vec<String> = Vec::new();
    let mut filters: Vec<String> = Vec::new();
    let (mut skips, mut exact, mut ignored_only) = (Vec::<String>::new(), false, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--test-files" => test_files = args.next().map(PathBuf::from),
            "--keep" => options.keep = true,
            "--verbose" => options.verbose = true,
            "--no-mapping" => options.no_mapping = true,
            "--datafusion" => options.datafusion = true,
            "-h" | "--help" => {
                println!(
                    "usage: cargo test --workspace --test sqllogictest -- [--test-files DIR] \
                     [--keep] [--verbose] [--no-mapping] [--datafusion] [FILE.slt ...]"
                );
                return ExitCode::SUCCESS;
            }
            // What cargo and test runners say to every test binary.
            "--list" => {
                println!("{NAME}: test");
                return ExitCode::SUCCESS;
            }
            _ if arg.ends_with(".slt") => only.push(arg),
            // libtest's options, as cargo passes them to every test binary:
            // this runner is one test, named `sqllogictest`, not ignored.
            "--skip" => skips.extend(args.next()),
            _ if arg.starts_with("--skip=") => skips.push(arg["--skip=".len()..].to_owned()),
            "--exact" => exact = true,
            "--ignored" => ignored_only = true,
            // Options that take a value (`--test-threads 2`, `--logfile F`).
            "--test-threads" | "--format" | "--color" | "-Z" | "--logfile" | "--shuffle-seed" => {
                args.next();
            }
            // The others (`--nocapture`, `-q`, `--test-threads=2`): this
            // runner prints as it goes.
            _ if arg.starts_with('-') => {}
            // A name filter, as `cargo test --workspace NAME` passes it to
            // every test binary: run only when it names this one.
            _ => filters.push(arg),
        }
    }
    let names = |pattern: &String| {
        if exact {
            pattern == NAME
        } else {
            NAME.contains(pattern.as_str())
        }
    };
    let filtered = !filters.is_empty() && !filters.iter().any(names);
    if filtered || skips.iter().any(names) || ignored_only {
        println!("{NAME}: filtered out");
        return ExitCode::SUCCESS;
    }
    let test_files = match test_files.map_or_else(locate_test_files, Ok) {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("jitson-sqllogictest: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&test_files, options, &only).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("jitson-sqllogictest: {e}");
            ExitCode::from(2)
        }
    }
}

/// `test_files/` of the datafusion-sqllogictest package this crate depends
/// on, from `cargo metadata` (the package's source in cargo's registry).
fn locate_test_files() -> Result<PathBuf, String> {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--manifest-path",
            manifest,
        ])
        .output()
        .map_err(|e| format!("running cargo metadata: {e} (or pass --test-files DIR)"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let packages = metadata["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?;
    let package = packages
        .iter()
        .find(|p| p["name"] == "datafusion-sqllogictest" && p["version"] == DATAFUSION_SQLLOGICTEST)
        .ok_or("cargo metadata: no datafusion-sqllogictest 55.2.0")?;
    let manifest_path = package["manifest_path"]
        .as_str()
        .ok_or("no manifest_path")?;
    let dir = Path::new(manifest_path)
        .parent()
        .ok_or("manifest_path has no parent")?
        .join("test_files");
    if !dir.join("json.slt").is_file() {
        return Err(format!("{} has no json.slt", dir.display()));
    }
    Ok(dir)
}

/// Runs the files; `Ok(true)` when nothing failed.
async fn run(test_files: &Path, options: Options, only: &[String]) -> Result<bool, String> {
    let tmp = tempfile::Builder::new()
        .prefix("jitson-slt.")
        .tempdir()
        .map_err(|e| format!("temporary directory: {e}"))?;
    let root = tmp
        .path()
        .canonicalize()
        .map_err(|e| format!("temporary directory: {e}"))?;
    let cwd = data::write(&root).map_err(|e| format!("writing the data files: {e}"))?;
    std::env::set_current_dir(&cwd).map_err(|e| format!("cd {}: {e}", cwd.display()))?;
    println!("test files: {}", test_files.display());
    println!("checkout laid out in {} (WORKSPACE_ROOT)", root.display());
    if options.datafusion {
        println!("control run: DataFusion's own JSON format (jitson not registered)");
    } else if options.no_mapping {
        println!("jitson registered; plan names not mapped");
    }
    // Paths as object_store prints them: without the leading '/'.
    let root_text = root.to_string_lossy().trim_start_matches('/').to_string();

    let mut total = Counts::default();
    let mut file_errors = 0;
    for (name, part) in FILES {
        let all = matches!(part, Part::All);
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let decoders_before = jitson_datafusion::cache::cached_schemas();
        let (counts, failures, config_error) =
            run_file(&test_files.join(name), name, part, &root_text, options).await?;
        for f in &failures {
            println!(
                "\nFAILED {}{}",
                f.location,
                if f.mapped { " (after the mapping)" } else { "" }
            );
            println!("-- record\n{}", f.record.trim_end());
            println!("-- expected\n{}", f.expected.trim_end());
            println!("-- actual\n{}", f.actual.trim_end());
        }
        if let Some(e) = &config_error {
            file_errors += 1;
            println!("\nFAILED {name}: {e}");
        }
        // Scans through jitson compile decoders (cached per schema): a file
        // whose JSON tables all went through DataFusion's own reader would
        // show none.
        let decoders = jitson_datafusion::cache::cached_schemas().saturating_sub(decoders_before);
        println!(
            "{name}{}: {} passed ({} of them after the mapping), {} failed, {} skipped, \
             {} not JSON (not run); {decoders} new jitson decoders",
            if all { "" } else { " (JSON parts)" },
            counts.passed + counts.mapped,
            counts.mapped,
            counts.failed,
            counts.skipped,
            counts.not_json
        );
        total.passed += counts.passed;
        total.mapped += counts.mapped;
        total.failed += counts.failed;
        total.skipped += counts.skipped;
        total.not_json += counts.not_json;
    }
    if options.keep {
        let kept = tmp.keep();
        println!("kept {}", kept.display());
    }
    println!(
        "records run: {} passed as they are, {} passed after the mapping, {} failed, {} skipped; {} not JSON",
        total.passed, total.mapped, total.failed, total.skipped, total.not_json
    );
    println!(
        "sqllogictest: {} passed, {} failed, {} skipped",
        total.passed + total.mapped,
        total.failed + file_errors,
        total.skipped
    );
    Ok(total.failed == 0 && file_errors == 0)
}

/// Runs one file's selected records in a fresh context.
async fn run_file(
    path: &Path,
    name: &str,
    part: &Part,
    root: &str,
    options: Options,
) -> Result<(Counts, Vec<Failure>, Option<String>), String> {
    let relative = PathBuf::from(name);
    let test_ctx = TestContext::try_new_for_test_file(&relative)
        .await
        .ok_or_else(|| format!("DataFusion's harness skips {name}"))?;
    let ctx = test_ctx.session_ctx().clone();
    if !options.datafusion {
        jitson_datafusion::register(&ctx).map_err(|e| format!("register: {e}"))?;
    }
    let factory = ctx.state().get_file_format_factory("json");
    if factory.is_some_and(|f| f.is::<JitsonFormatFactory>()) == options.datafusion {
        return Err(format!("{name}: json is not the format asked for"));
    }
    setup_scratch_dir(&relative).map_err(|e| format!("scratch directory: {e}"))?;

    let mapped = Arc::new(AtomicBool::new(false));
    let config_errors = Arc::new(Mutex::new(Vec::new()));
    let mut runner = sqllogictest::Runner::new(|| {
        let ctx = ctx.clone();
        let relative = relative.clone();
        let root = root.to_string();
        let mapped = Arc::clone(&mapped);
        let config_errors = Arc::clone(&config_errors);
        async move {
            let inner = DataFusion::new(ctx, relative, ProgressBar::hidden())
                .with_config_change_errors(config_errors);
            Ok(JitsonDb::new(inner, root, mapped, !options.no_mapping))
        }
    });
    runner.add_label("Datafusion");
    runner.with_column_validator(strict_column_validator);
    runner.with_normalizer(value_normalizer);
    runner.with_validator(df_value_validator);

    let records = sqllogictest::parse_file::<DFColumnType>(path).map_err(|e| e.to_string())?;
    let mut selection = Selection::new(part);
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    for record in records {
        let (loc, sql) = match &record {
            Record::Halt { .. } => break,
            Record::Statement { loc, sql, .. } | Record::Query { loc, sql, .. } => {
                (loc.clone(), sql.clone())
            }
            _ => {
                // Control, hash-threshold, comments: the runner's own business.
                if let Err(e) = runner.run_async(record).await {
                    return Err(format!("{name}: {e}"));
                }
                continue;
            }
        };
        let location = format!("{name}:{}", loc.line());
        if !selection.runs(loc.line(), &sql) {
            counts.not_json += 1;
            if options.verbose {
                println!("{location}: not JSON (not run)");
            }
            continue;
        }
        let text = record.to_string();
        mapped.store(false, Ordering::Relaxed);
        let result = runner.run_async(record).await;
        let was_mapped = mapped.load(Ordering::Relaxed);
        let outcome = match result {
            Ok(RecordOutput::Nothing) => {
                counts.skipped += 1;
                "skipped"
            }
            Ok(_) if was_mapped => {
                counts.mapped += 1;
                "passed after the mapping"
            }
            Ok(_) => {
                counts.passed += 1;
                "passed"
            }
            Err(e) => {
                counts.failed += 1;
                let (expected, actual) = expected_and_actual(e.kind());
                failures.push(Failure {
                    location: location.clone(),
                    record: text,
                    expected,
                    actual,
                    mapped: was_mapped,
                });
                "FAILED"
            }
        };
        if options.verbose {
            println!("{location}: {outcome}: {}", first_line(&sql));
        }
    }
    runner.shutdown_async().await;
    let config_error = config_errors.lock().unwrap().first().cloned();
    // The next file starts from a fresh scratch directory of its own; this
    // one's is left for --keep.
    Ok((counts, failures, config_error))
}

/// The first line of `sql`, for --verbose.
fn first_line(sql: &str) -> &str {
    sql.lines().next().unwrap_or_default()
}

/// What a failed record expected, and what it got.
fn expected_and_actual(kind: TestErrorKind) -> (String, String) {
    match kind {
        TestErrorKind::QueryResultMismatch {
            expected, actual, ..
        } => (expected, actual),
        TestErrorKind::QueryResultColumnsMismatch {
            expected, actual, ..
        } => (
            format!("column types {expected}"),
            format!("column types {actual}"),
        ),
        TestErrorKind::ErrorMismatch {
            err, expected_err, ..
        } => (
            format!("an error matching: {expected_err}"),
            format!("error: {err}"),
        ),
        TestErrorKind::Fail { err, .. } => ("success".into(), format!("error: {err}")),
        TestErrorKind::Ok { .. } => ("an error".into(), "success".into()),
        TestErrorKind::StatementResultMismatch {
            expected, actual, ..
        } => (format!("{expected} rows"), format!("{actual} rows")),
        other => ("(see the record)".into(), other.to_string()),
    }
}
