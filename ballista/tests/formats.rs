//! Ballista standalone beyond plain NDJSON scans, each against local
//! DataFusion with its own JSON reader and writer:
//!
//! - `COPY … STORED AS JSON` writes through jitson's sink on an executor, and
//!   the file's bytes equal DataFusion's `COPY` of the same query (also
//!   zstd-compressed);
//!   `COPY … PARTITIONED BY` writes the same rows into the same directories;
//! - `INSERT INTO` a JSON table appends files that read back as DataFusion's
//!   rows;
//! - a Hive-partitioned table (`PARTITIONED BY`), gzip, bzip2, xz and zstd
//!   files and a JSON-array file (`format.newline_delimited` false) read as DataFusion
//!   reads them;
//! - a broken record's error arrives as jitson's text (file, line, column),
//!   not a `Debug` dump of its fields;
//! - URL tables (`SELECT … FROM 'logs/part-0.json'`) read through jitson on
//!   the cluster, and `DataFrame::write_json` writes through jitson's sink,
//!   with DataFusion's bytes.

use std::fs;
use std::path::{Path, PathBuf};

use ballista::prelude::SessionContextExt as _;
use datafusion::common::Result;
use datafusion::prelude::{JsonReadOptions, SessionContext};
use jitson_ballista::BallistaJitsonExt;

#[path = "../common/queries.rs"]
mod queries;

use queries::{BROKEN_LINE, BROKEN_QUERY, QUERIES, local_context, path_of, rows, write_data};

/// A total order of the log set's rows (the generator's timestamps repeat,
/// the rest of the key breaks the ties), so two writers write the same bytes.
const ORDER: &str = "ts, service, level, message, latency_ms, user_id";

/// DataFusion's compressions and their file extensions.
const COMPRESSIONS: [(&str, &str); 4] = [
    ("gzip", ".gz"),
    ("bzip2", ".bz2"),
    ("xz", ".xz"),
    ("zstd", ".zst"),
];

/// A Ballista standalone cluster (scheduler and executor in this process)
/// with `logs` registered through jitson.
async fn ballista(dir: &Path) -> Result<SessionContext> {
    let ctx =
        SessionContext::standalone_with_state(jitson_ballista::default_session_state()?).await?;
    ctx.register_jitson(
        "logs",
        path_of(&dir.join("logs")),
        JsonReadOptions::default(),
    )
    .await?;
    Ok(ctx)
}

/// Runs a statement (DDL, `COPY`, `INSERT`) to completion.
async fn run(ctx: &SessionContext, sql: &str) -> Result<()> {
    ctx.sql(sql).await?.collect().await?;
    Ok(())
}

/// The files under `dir`, recursively, in path order.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// For each directory under `dir` that holds files, its path relative to
/// `dir` and the sorted lines of its files (file names are random).
fn lines_by_directory(dir: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut out: Vec<(PathBuf, Vec<String>)> = Vec::new();
    for file in files_under(dir) {
        let parent = file
            .parent()
            .unwrap()
            .strip_prefix(dir)
            .unwrap()
            .to_path_buf();
        let text = fs::read_to_string(&file).unwrap();
        match out.iter_mut().find(|(p, _)| *p == parent) {
            Some((_, lines)) => lines.extend(text.lines().map(str::to_string)),
            None => out.push((parent, text.lines().map(str::to_string).collect())),
        }
    }
    for (_, lines) in &mut out {
        lines.sort();
    }
    out.sort();
    out
}

/// Each of [`QUERIES`] over `table` in `ctx` equals the same query over
/// `table` in `local`.
async fn same_results(ctx: &SessionContext, local: &SessionContext, table: &str) -> Result<()> {
    for sql in QUERIES {
        let sql = sql.replace("FROM logs", &format!("FROM {table}"));
        let expected = rows(local, &sql).await?;
        assert!(expected.len() > 1, "no rows: {sql}");
        assert_eq!(rows(ctx, &sql).await?, expected, "{sql}");
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn copy_and_insert_write_datafusions_bytes() -> Result<()> {
    let dir = tempfile::tempdir()?;
    write_data(dir.path(), 3_000, 2)?;
    let local = local_context(dir.path()).await?;
    let ctx = ballista(dir.path()).await?;

    // COPY of a query into one file: the same bytes as DataFusion's writer.
    let query = format!("SELECT * FROM logs ORDER BY {ORDER}");
    let ours = dir.path().join("copy-ballista.json");
    let theirs = dir.path().join("copy-local.json");
    let plan = rows(
        &ctx,
        &format!(
            "EXPLAIN COPY ({query}) TO '{}' STORED AS JSON",
            ours.display()
        ),
    )
    .await?
    .join("\n");
    assert!(plan.contains("JitsonSink"), "not jitson's sink:\n{plan}");
    let copied = rows(
        &ctx,
        &format!("COPY ({query}) TO '{}' STORED AS JSON", ours.display()),
    )
    .await?;
    assert_eq!(copied[1].trim_matches(['|', ' ']), "3000", "{copied:?}");
    run(
        &local,
        &format!("COPY ({query}) TO '{}' STORED AS JSON", theirs.display()),
    )
    .await?;
    let (ours, theirs) = (fs::read(&ours)?, fs::read(&theirs)?);
    assert!(!ours.is_empty());
    assert!(ours == theirs, "COPY through Ballista wrote other bytes");

    // Compressed, the same bytes again.
    let ours = dir.path().join("copy-ballista.json.zst");
    let theirs = dir.path().join("copy-local.json.zst");
    let copy = |to: &Path| {
        format!(
            "COPY ({query}) TO '{}' STORED AS JSON OPTIONS ('format.compression' 'zstd')",
            to.display()
        )
    };
    run(&ctx, &copy(&ours)).await?;
    run(&local, &copy(&theirs)).await?;
    let (ours, theirs) = (fs::read(&ours)?, fs::read(&theirs)?);
    assert_eq!(&ours[..4], &[0x28, 0xb5, 0x2f, 0xfd], "not zstd");
    assert!(
        ours == theirs,
        "a compressed COPY through Ballista wrote other bytes"
    );

    // COPY … PARTITIONED BY: the same directories, the same rows in each.
    let copy = |to: &Path| {
        format!(
            "COPY (SELECT * FROM logs) TO '{}' STORED AS JSON PARTITIONED BY (level)",
            path_of(to)
        )
    };
    let ours = dir.path().join("by-level-ballista");
    let theirs = dir.path().join("by-level-local");
    run(&ctx, &copy(&ours)).await?;
    run(&local, &copy(&theirs)).await?;
    let (ours, theirs) = (lines_by_directory(&ours), lines_by_directory(&theirs));
    assert!(ours.len() > 1, "one directory: {:?}", ours.len());
    assert_eq!(ours, theirs);

    // INSERT INTO a JSON table made by CREATE EXTERNAL TABLE, twice.
    let sink = dir.path().join("inserted");
    let create = format!(
        "CREATE EXTERNAL TABLE counts (level VARCHAR, service VARCHAR, n BIGINT) \
         STORED AS JSON LOCATION '{}'",
        path_of(&sink)
    );
    run(&ctx, &create).await?;
    run(&local, &create).await?;
    let insert = "INSERT INTO counts SELECT level, service, count(*) FROM logs GROUP BY 1, 2";
    let groups = rows(
        &local,
        "SELECT count(*) AS count FROM (SELECT DISTINCT level, service FROM logs)",
    )
    .await?;
    for _ in 0..2 {
        assert_eq!(rows(&ctx, insert).await?, groups);
    }
    // (each INSERT writes one file or more)
    assert!(files_under(&sink).len() >= 2);
    let read_back = "SELECT level, service, sum(n) AS n, count(*) AS copies FROM counts \
                     GROUP BY 1, 2 ORDER BY 1, 2";
    let expected = rows(
        &local,
        "SELECT level, service, 2 * count(*) AS n, 2 AS copies FROM logs \
         GROUP BY 1, 2 ORDER BY 1, 2",
    )
    .await?;
    assert_eq!(rows(&ctx, read_back).await?, expected);
    // DataFusion's own reader reads what jitson wrote.
    assert_eq!(rows(&local, read_back).await?, expected);

    // A table declared sorted: the sink's required order travels with it,
    // and the executor sorts before writing.
    let sorted = dir.path().join("sorted");
    run(
        &ctx,
        &format!(
            "CREATE EXTERNAL TABLE sorted (service VARCHAR, n BIGINT) STORED AS JSON \
             WITH ORDER (n DESC, service ASC) LOCATION '{}'",
            path_of(&sorted)
        ),
    )
    .await?;
    let plan = rows(
        &ctx,
        "EXPLAIN INSERT INTO sorted SELECT service, count(*) FROM logs GROUP BY 1",
    )
    .await?
    .join("\n");
    assert!(
        plan.contains("SortExec"),
        "no sort before the sink:\n{plan}"
    );
    run(
        &ctx,
        "INSERT INTO sorted SELECT service, count(*) FROM logs GROUP BY 1",
    )
    .await?;
    let written: Vec<String> = files_under(&sorted)
        .iter()
        .map(|f| fs::read_to_string(f).unwrap())
        .collect();
    let expected = rows(
        &local,
        "SELECT service, count(*) AS n FROM logs GROUP BY 1 ORDER BY n DESC, service",
    )
    .await?;
    assert_eq!(written.len(), 1, "{written:?}");
    let lines: Vec<&str> = written[0].lines().collect();
    assert_eq!(lines.len() + 1, expected.len());
    for (line, row) in lines.iter().zip(&expected[1..]) {
        let service = row.split('|').nth(1).unwrap().trim();
        assert!(line.contains(&format!("\"{service}\"")), "{line} / {row}");
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn partitioned_compressed_and_array_files_read_as_datafusion_reads_them() -> Result<()> {
    let dir = tempfile::tempdir()?;
    write_data(dir.path(), 3_000, 2)?;
    let local = local_context(dir.path()).await?;
    let ctx = ballista(dir.path()).await?;

    // Written by local DataFusion: a Hive-partitioned copy and a gzip copy.
    let by_service = path_of(&dir.path().join("by-service"));
    run(
        &local,
        &format!(
            "COPY (SELECT * FROM logs) TO '{by_service}' STORED AS JSON PARTITIONED BY (service)"
        ),
    )
    .await?;
    for (compression, extension) in COMPRESSIONS {
        let to = path_of(&dir.path().join(compression));
        run(
            &local,
            &format!(
                "COPY (SELECT * FROM logs) TO '{to}logs.json{extension}' STORED AS JSON \
                 OPTIONS ('format.compression' '{compression}')"
            ),
        )
        .await?;
    }
    let gz = fs::read(dir.path().join("gzip/logs.json.gz"))?;
    assert_eq!(&gz[..2], &[0x1f, 0x8b], "not gzip");
    // A JSON array of the records of both files.
    let mut records = Vec::new();
    for file in files_under(&dir.path().join("logs")) {
        let text = fs::read_to_string(file)?;
        records.extend(text.lines().map(str::to_string));
    }
    fs::create_dir_all(dir.path().join("array"))?;
    fs::write(
        dir.path().join("array/logs.json"),
        format!("[\n{}\n]\n", records.join(",\n")),
    )?;
    let array = path_of(&dir.path().join("array"));

    for create in [
        format!(
            "CREATE EXTERNAL TABLE by_service STORED AS JSON PARTITIONED BY (service) \
             LOCATION '{by_service}'"
        ),
        format!(
            "CREATE EXTERNAL TABLE array STORED AS JSON LOCATION '{array}' \
             OPTIONS ('format.newline_delimited' 'false')"
        ),
    ]
    .into_iter()
    .chain(COMPRESSIONS.iter().map(|(compression, _)| {
        format!(
            "CREATE EXTERNAL TABLE {compression} STORED AS JSON LOCATION '{}' \
             OPTIONS ('format.compression' '{compression}')",
            path_of(&dir.path().join(compression))
        )
    })) {
        run(&ctx, &create).await?;
        run(&local, &create).await?;
    }

    same_results(&ctx, &local, "by_service").await?;
    // Partition pruning: one directory's rows.
    let sql = "SELECT level, count(*) AS n FROM by_service WHERE service = 'auth' \
               GROUP BY level ORDER BY level";
    let expected = rows(&local, sql).await?;
    assert!(expected.len() > 1, "no rows for service auth: {expected:?}");
    assert_eq!(rows(&ctx, sql).await?, expected);
    // Registered with register_jitson and a partition column too.
    let options = JsonReadOptions::default().table_partition_cols(vec![(
        "service".to_string(),
        datafusion::arrow::datatypes::DataType::Utf8,
    )]);
    ctx.register_jitson("by_service2", &by_service, options)
        .await?;
    let expected = rows(&local, &QUERIES[2].replace("logs", "by_service")).await?;
    assert_eq!(
        rows(&ctx, &QUERIES[2].replace("logs", "by_service2")).await?,
        expected
    );

    for (compression, _) in COMPRESSIONS {
        same_results(&ctx, &local, compression).await?;
    }
    same_results(&ctx, &local, "array").await?;
    // And all equal the NDJSON originals.
    assert_eq!(
        rows(&ctx, QUERIES[2]).await?,
        rows(&ctx, &QUERIES[2].replace("logs", "array")).await?
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_broken_file_fails_with_readable_text() -> Result<()> {
    let dir = tempfile::tempdir()?;
    write_data(dir.path(), 100, 1)?;
    let ctx = ballista(dir.path()).await?;
    let schema = ctx.table("logs").await?.schema().as_arrow().clone();
    ctx.register_jitson(
        "broken",
        path_of(&dir.path().join("broken")),
        JsonReadOptions::default().schema(&schema),
    )
    .await?;
    let error = match rows(&ctx, BROKEN_QUERY).await {
        Ok(rows) => panic!("the broken file was read: {rows:?}"),
        Err(e) => e.to_string(),
    };
    // jitson's Display text: `…/broken/broken.json: line 3, column 63 (byte
    // 686, record 2) at $.service: expected ident …`.
    let at = format!("broken.json: line {BROKEN_LINE}, column ");
    assert!(error.contains(&at), "no `{at}` in: {error}");
    assert!(error.contains("at $.service"), "no JSON path in: {error}");
    assert!(
        !error.contains("RecordError {"),
        "the fields' Debug dump in: {error}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn url_tables_and_write_json_cross_to_the_cluster() -> Result<()> {
    use datafusion::dataframe::DataFrameWriteOptions;
    use datafusion::datasource::file_format::{file_type_to_format, format_as_file_type};
    use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder};

    let dir = tempfile::tempdir()?;
    write_data(dir.path(), 2_000, 2)?;
    let local = local_context(dir.path()).await?.enable_url_table();
    let ctx = jitson_ballista::enable_url_table(ballista(dir.path()).await?);

    // A URL table: jitson's scan, planned by the client and run on the
    // executor, with DataFusion's results.
    let file = dir.path().join("logs").join("part-0.json");
    let sql = format!(
        "SELECT level, count(*) AS n, sum(latency_ms) AS total FROM '{}' GROUP BY level ORDER BY level",
        file.display()
    );
    let plan = rows(&ctx, &format!("EXPLAIN {sql}")).await?.join("\n");
    assert!(plan.contains("reader=jitson"), "not jitson's scan:\n{plan}");
    let expected = rows(&local, &sql).await?;
    assert!(expected.len() > 2, "{expected:?}");
    assert_eq!(rows(&ctx, &sql).await?, expected);

    // write_json names DataFusion's format; the session's rule makes it
    // jitson's before the plan leaves the client...
    let query = format!("SELECT * FROM logs ORDER BY {ORDER}");
    let ours = dir.path().join("written-ballista.json");
    let theirs = dir.path().join("written-local.json");
    let copy = LogicalPlanBuilder::copy_to(
        ctx.sql(&query).await?.logical_plan().clone(),
        path_of(&ours),
        format_as_file_type(std::sync::Arc::new(
            datafusion::datasource::file_format::json::JsonFormatFactory::new(),
        )),
        Default::default(),
        vec![],
    )?
    .build()?;
    let LogicalPlan::Copy(analyzed) = ctx.state().optimize(&copy)? else {
        panic!("not a COPY");
    };
    let format = file_type_to_format(&analyzed.file_type)?;
    assert!(
        format
            .downcast_ref::<jitson_datafusion::JitsonFormatFactory>()
            .is_some(),
        "write_json's format is not jitson's"
    );
    // ...and the executor writes DataFusion's bytes.
    ctx.sql(&query)
        .await?
        .write_json(
            ours.to_str().unwrap(),
            DataFrameWriteOptions::new().with_single_file_output(true),
            None,
        )
        .await?;
    local
        .sql(&query)
        .await?
        .write_json(
            theirs.to_str().unwrap(),
            DataFrameWriteOptions::new().with_single_file_output(true),
            None,
        )
        .await?;
    let (ours, theirs) = (fs::read(&ours)?, fs::read(&theirs)?);
    assert_eq!(ours.iter().filter(|&&b| b == b'\n').count(), 2_000);
    assert!(
        ours == theirs,
        "write_json through Ballista wrote other bytes"
    );
    Ok(())
}
