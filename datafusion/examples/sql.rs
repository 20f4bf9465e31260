//! SQL over NDJSON: DataFusion's own JSON format against jitson's, on the
//! generated log data set (and on twitter.json's statuses when the corpus is
//! present), at one partition and at every partition, checking that every
//! query gives the same rows.
//!
//! For each query and partition count the two formats run interleaved, round
//! by round (5 rounds, 2 with `--quick`), each on a fresh `SessionContext`
//! whose table was created before the clock starts (schema inference is not
//! timed); the table shows the medians, the MB/s of the file scanned, and
//! DataFusion's time over jitson's (higher is faster). Compiling jitson's
//! decoder happens on a first, untimed warm-up query (the compiled decoder is
//! cached for the process, as it would be in a service).
//!
//! Run: `cargo run --release -p jitson-datafusion --example sql` (`-- --quick`
//! for 200,000 records instead of 1,000,000). The exit status is 1 if any
//! answer differs.
//!
//! On the twitter statuses, whose queries read two of about thirty members,
//! each query also runs on a table of jitson's format built with
//! `JitsonFormat::with_validate_skipped(false)` (the members no column reads
//! are skipped without being validated; not the default, and not what
//! DataFusion's reader does): a line after the table gives its median, timed
//! in the same rounds, and its answers are checked too.
//!
//! For a profiler, `SQL_PROFILE=<query label>` (a label of the logs table,
//! e.g. `full scan`) runs that query alone on the log data set, one
//! partition (`SQL_PARTITIONS=<n>` for more), for `SQL_SECONDS` seconds
//! (default 10) with jitson's format, or DataFusion's own with
//! `SQL_PROFILE_FORMAT=datafusion`; it prints the queries run and their mean
//! time.

#[path = "../../arrow/examples/data/logs.rs"]
mod logs;
#[path = "../../arrow/examples/data/sql_bench.rs"]
mod sql_bench;

use sql_bench::{QUERIES, Same, median, same_answers};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::Result;
use datafusion::prelude::{SessionConfig, SessionContext};

#[tokio::main]
async fn main() -> Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 2 } else { 5 };
    let dir = std::env::temp_dir().join(format!("jitson-datafusion-sql-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let result = run(&dir, quick, rounds).await;
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(true) => Ok(()),
        Ok(false) => {
            eprintln!("some answers differ");
            std::process::exit(1);
        }
        Err(e) => Err(e),
    }
}

async fn run(dir: &Path, quick: bool, rounds: usize) -> Result<bool> {
    let rows = if quick { 200_000 } else { 1_000_000 };
    let logs = dir.join("logs.json");
    std::fs::write(&logs, logs::generate_logs(rows))?;
    if let Ok(label) = std::env::var("SQL_PROFILE") {
        profile(&logs, &label).await?;
        return Ok(true);
    }
    let mut data_sets = vec![(format!("logs ({rows} records)"), logs)];
    if let Some(statuses) = twitter_statuses(dir)? {
        data_sets.push(("twitter statuses".to_string(), statuses));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{rounds} rounds, medians; {cores} cores\n");
    let mut all_equal = true;
    for (name, file) in &data_sets {
        let mb = std::fs::metadata(file)?.len() as f64 / 1e6;
        println!("## {name}: {mb:.1} MB\n");
        println!(
            "| query | partitions | DataFusion ms | jitson ms | DataFusion MB/s | jitson MB/s | DataFusion / jitson | same rows |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        let queries: Vec<(&str, String)> = if name.starts_with("logs") {
            QUERIES.iter().map(|(n, q)| (*n, q.to_string())).collect()
        } else {
            vec![
                ("count(*)", "SELECT count(*) FROM t".to_string()),
                (
                    "group by lang",
                    "SELECT lang, count(*) AS n, sum(retweet_count) AS rt FROM t \
                     GROUP BY lang ORDER BY n DESC, lang LIMIT 10"
                        .to_string(),
                ),
            ]
        };
        let unvalidated = !name.starts_with("logs");
        let mut unvalidated_lines = Vec::new();
        for (label, sql) in &queries {
            for partitions in [1, cores] {
                let (ours_t, theirs_t, same, fast) =
                    compare(file, sql, partitions, rounds, unvalidated).await?;
                all_equal &= same != Same::No;
                if let Some((fast_t, fast_same)) = fast {
                    all_equal &= fast_same != Same::No;
                    unvalidated_lines.push(format!(
                        "- {label}, {partitions} partition(s): {:.1} ms, DataFusion / it {:.2}×, \
                         jitson (validating) / it {:.2}×, same rows: {}",
                        ms(fast_t),
                        theirs_t.as_secs_f64() / fast_t.as_secs_f64(),
                        ours_t.as_secs_f64() / fast_t.as_secs_f64(),
                        if fast_same == Same::No { "NO" } else { "yes" }
                    ));
                }
                println!(
                    "| {label} | {partitions} | {:.1} | {:.1} | {:.0} | {:.0} | {:.2}× | {} |",
                    ms(theirs_t),
                    ms(ours_t),
                    mb / theirs_t.as_secs_f64(),
                    mb / ours_t.as_secs_f64(),
                    theirs_t.as_secs_f64() / ours_t.as_secs_f64(),
                    match same {
                        Same::Exactly => "yes",
                        Same::ButFloatRounding => "yes (floats to 1e-12)",
                        Same::No => "NO",
                    }
                );
            }
        }
        if !unvalidated_lines.is_empty() {
            println!("\nWith `with_validate_skipped(false)` (unread members not validated):\n");
            for line in &unvalidated_lines {
                println!("{line}");
            }
        }
        println!();
    }
    Ok(all_equal)
}

/// `SQL_PROFILE`: one query of the logs table, one format, one partition (or
/// `SQL_PARTITIONS`), run again and again for `SQL_SECONDS`.
async fn profile(file: &Path, label: &str) -> Result<()> {
    let sql = QUERIES
        .iter()
        .find(|(l, _)| *l == label)
        .map(|(_, q)| *q)
        .unwrap_or_else(|| panic!("SQL_PROFILE: no query labelled {label:?}"));
    let jitson = std::env::var("SQL_PROFILE_FORMAT").map_or(true, |f| f != "datafusion");
    let seconds: f64 = std::env::var("SQL_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let partitions: usize = std::env::var("SQL_PARTITIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let ctx = context(file, partitions, jitson).await?;
    query(&ctx, sql).await?;
    let (start, mut n) = (Instant::now(), 0u32);
    while start.elapsed().as_secs_f64() < seconds {
        query(&ctx, sql).await?;
        n += 1;
    }
    let format = if jitson {
        "jitson"
    } else {
        "DataFusion's JSON"
    };
    println!(
        "{label}, {format}, {partitions} partition(s): {n} queries, {:.1} ms each",
        ms(start.elapsed()) / f64::from(n.max(1))
    );
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

async fn context(file: &Path, partitions: usize, jitson: bool) -> Result<SessionContext> {
    let config = SessionConfig::new().with_target_partitions(partitions);
    let ctx = SessionContext::new_with_config(config);
    if jitson {
        jitson_datafusion::register(&ctx)?;
    }
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}'",
        file.display()
    ))
    .await?;
    Ok(ctx)
}

/// A context whose table `t` is `file` in jitson's format with
/// `with_validate_skipped(false)`, its schema inferred as `CREATE EXTERNAL
/// TABLE` infers it.
async fn unvalidated_context(file: &Path, partitions: usize) -> Result<SessionContext> {
    use datafusion::datasource::listing::{
        ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
    };
    use jitson_datafusion::JitsonFormat;
    let config = SessionConfig::new().with_target_partitions(partitions);
    let ctx = SessionContext::new_with_config(config);
    jitson_datafusion::register(&ctx)?;
    let format = JitsonFormat::default().with_validate_skipped(false);
    let options = ListingOptions::new(std::sync::Arc::new(format)).with_file_extension(".json");
    let url = ListingTableUrl::parse(file.to_string_lossy())?;
    let config = ListingTableConfig::new(url)
        .with_listing_options(options)
        .infer_schema(&ctx.state())
        .await?;
    ctx.register_table("t", std::sync::Arc::new(ListingTable::try_new(config)?))?;
    Ok(ctx)
}

async fn query(ctx: &SessionContext, sql: &str) -> Result<(Duration, Vec<RecordBatch>)> {
    let start = Instant::now();
    let batches = ctx.sql(sql).await?.collect().await?;
    Ok((start.elapsed(), batches))
}

/// Medians of jitson's and DataFusion's times, and whether the answers agree;
/// with `unvalidated`, also the median and agreement of jitson's format with
/// `with_validate_skipped(false)`, timed in the same rounds.
async fn compare(
    file: &Path,
    sql: &str,
    partitions: usize,
    rounds: usize,
    unvalidated: bool,
) -> Result<(Duration, Duration, Same, Option<(Duration, Same)>)> {
    let ours_ctx = context(file, partitions, true).await?;
    let theirs_ctx = context(file, partitions, false).await?;
    let fast_ctx = match unvalidated {
        true => Some(unvalidated_context(file, partitions).await?),
        false => None,
    };
    // Warm-up: compiles jitson's decoder, fills the OS page cache.
    let (_, ours_rows) = query(&ours_ctx, sql).await?;
    let (_, theirs_rows) = query(&theirs_ctx, sql).await?;
    let theirs_text = pretty_format_batches(&theirs_rows)?.to_string();
    let same = same_answers(
        &pretty_format_batches(&ours_rows)?.to_string(),
        &theirs_text,
    );
    let fast_same = match &fast_ctx {
        Some(ctx) => {
            let rows = query(ctx, sql).await?.1;
            Some(same_answers(
                &pretty_format_batches(&rows)?.to_string(),
                &theirs_text,
            ))
        }
        None => None,
    };
    let (mut ours, mut theirs, mut fast) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        // Alternate which goes first.
        if round % 2 == 0 {
            ours.push(query(&ours_ctx, sql).await?.0);
            theirs.push(query(&theirs_ctx, sql).await?.0);
        } else {
            theirs.push(query(&theirs_ctx, sql).await?.0);
            ours.push(query(&ours_ctx, sql).await?.0);
        }
        if let Some(ctx) = &fast_ctx {
            fast.push(query(ctx, sql).await?.0);
        }
    }
    let fast = fast_same.map(|same| (median(fast), same));
    Ok((median(ours), median(theirs), same, fast))
}

/// twitter.json's statuses, one per line, repeated to at least 20 MB, from the
/// benchmark corpus (`../shared/corpus/bench/`, or the directory `JITSON_CORPUS`
/// names), if present.
fn twitter_statuses(dir: &Path) -> Result<Option<PathBuf>> {
    let corpus = std::env::var_os("JITSON_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../shared/corpus/bench"
            ))
        });
    let Ok(text) = std::fs::read(corpus.join("twitter.json")) else {
        return Ok(None);
    };
    let doc: serde_json::Value = serde_json::from_slice(&text)
        .map_err(|e| datafusion::common::DataFusionError::External(Box::new(e)))?;
    let mut lines = String::new();
    for status in doc["statuses"].as_array().into_iter().flatten() {
        lines.push_str(&status.to_string());
        lines.push('\n');
    }
    if lines.is_empty() {
        return Ok(None);
    }
    let mut out = String::with_capacity(20 << 20);
    while out.len() < 20 << 20 {
        out.push_str(&lines);
    }
    let path = dir.join("twitter.json");
    std::fs::write(&path, out)?;
    Ok(Some(path))
}
