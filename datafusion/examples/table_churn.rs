//! Issue 39's churn, DataFusion's half: one session with jitson as its JSON
//! format meets table after table of a schema of its own. For each it writes
//! an NDJSON file (4 to 16 nullable Int64 / Utf8 columns with names of their
//! own, two records), creates an external table over it, queries it
//! (`SELECT *`, so the whole schema is compiled, and a count), drops the
//! table and deletes the file. Prints resident memory (`/proc/self/statm`)
//! after 1,000 tables and at the end, the time per table, how many schemas
//! ran on the JIT, and the figures of jitson-datafusion's cache of compiled
//! schemas and of the code region.
//!
//! ```text
//! cargo run --release -p jitson-datafusion --example table_churn [tables, default 10000]
//! ```
//!
//! DataFusion's release build is long (about 40 minutes on two cores); the
//! test profile's build, which `cargo test --workspace` has made already,
//! runs it too (DataFusion unoptimised, so the time per table is mostly
//! DataFusion's planning):
//!
//! ```text
//! cargo build --workspace --profile test --example table_churn && target/debug/examples/table_churn
//! ```

use std::path::Path;
use std::time::Instant;

use datafusion::arrow::array::RecordBatch;
use datafusion::prelude::SessionContext;
use jitson_datafusion::cache;

/// The NDJSON text of table `n`: two records of its schema.
fn table_text(n: usize) -> String {
    let columns = 4 + n % 13;
    let record = |row: usize| {
        let members: Vec<String> = (0..columns)
            .map(|c| {
                let name = format!("t{n}_c{c}");
                match ((n + c) % 2, (row + c) % 5) {
                    (_, 0) => format!("\"{name}\":null"),
                    (0, _) => format!("\"{name}\":{}", row * 1000 + c),
                    _ => format!("\"{name}\":\"v{row}_{c}\""),
                }
            })
            .collect();
        format!("{{{}}}\n", members.join(","))
    };
    record(0) + &record(1)
}

fn resident_mb() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / 1e6
}

fn rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

/// Creates, queries and drops table `n` over a file in `dir`.
async fn churn_one(ctx: &SessionContext, dir: &Path, n: usize) {
    let path = dir.join(format!("t{n}.json"));
    std::fs::write(&path, table_text(n)).expect("writes the table's file");
    let create = format!(
        "CREATE EXTERNAL TABLE t{n} STORED AS JSON LOCATION '{}'",
        path.display()
    );
    ctx.sql(&create)
        .await
        .expect("create")
        .collect()
        .await
        .expect("create");
    let all = ctx
        .sql(&format!("SELECT * FROM t{n}"))
        .await
        .expect("select");
    assert_eq!(rows(&all.collect().await.expect("select")), 2);
    let count = ctx
        .sql(&format!("SELECT count(*) FROM t{n}"))
        .await
        .expect("count");
    assert_eq!(rows(&count.collect().await.expect("count")), 1);
    ctx.sql(&format!("DROP TABLE t{n}")).await.expect("drop");
    std::fs::remove_file(&path).expect("removes the table's file");
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let tables: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let ctx = SessionContext::new();
    jitson_datafusion::register(&ctx).expect("registers jitson");
    let dir = tempfile::tempdir().expect("a temporary directory");
    println!("start: resident {:.1} MB", resident_mb());
    let started = Instant::now();
    let mut at_1000 = None;
    for n in 0..tables {
        churn_one(&ctx, dir.path(), n).await;
        if n + 1 == 1_000 || (n + 1) % 2_000 == 0 {
            let rss = resident_mb();
            if n + 1 == 1_000 {
                at_1000 = Some(rss);
            }
            let code = jitson_arrow::stats().code;
            println!(
                "{:>6} tables: resident {rss:.1} MB, code held {} KB, region span {} KB, {:.1} s",
                n + 1,
                code.taken / 1024,
                code.span / 1024,
                started.elapsed().as_secs_f64()
            );
        }
    }
    let end = resident_mb();
    let arrow = jitson_arrow::stats();
    let cache = cache::cache_stats();
    println!(
        "{tables} tables in {:.1} s ({:.2} ms a table): resident after 1,000 {:.1} MB, \
         at the end {end:.1} MB (growth {:+.1} MB)",
        started.elapsed().as_secs_f64(),
        started.elapsed().as_secs_f64() * 1e3 / tables as f64,
        at_1000.unwrap_or(end),
        end - at_1000.unwrap_or(end),
    );
    println!(
        "on the JIT: {} schemas compiled ({:.3} ms each), {} fell back to the interpreter; \
         region full {}, OS refused {}",
        arrow.readers_compiled,
        arrow.reader_compile_time.as_secs_f64() * 1e3 / arrow.readers_compiled.max(1) as f64,
        arrow.reader_fallbacks,
        arrow.code.region_full,
        arrow.code.os_refused,
    );
    println!(
        "cache of compiled schemas: {} held (bound {}), {} compiles, {} evictions, \
         {} recompiled after eviction",
        cache.len, cache.capacity, cache.compiles, cache.evictions, cache.recompiles_after_eviction
    );
    println!("{:#?}", arrow.code);
}
