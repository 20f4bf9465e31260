//! jitson's format against DataFusion's own JSON format: the same SQL over the
//! same files must give the same rows, at 1, 2 and 4 partitions (files split
//! into byte ranges), over one and several files, compressed, as JSON arrays,
//! with partition columns, and through object stores that return tiny chunks.

#[path = "../../arrow/examples/data/logs.rs"]
mod logs;

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::Result;
use datafusion::prelude::{JsonReadOptions, SessionConfig, SessionContext};
use object_store::chunked::ChunkedStore;
use object_store::memory::InMemory;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

/// A context with `partitions` target partitions whose file scans are split
/// into ranges of at least 256 bytes; jitson's format registered or not.
fn context(partitions: usize, jitson: bool) -> SessionContext {
    let config = SessionConfig::new()
        .with_target_partitions(partitions)
        .with_repartition_file_scans(true)
        .with_repartition_file_min_size(256)
        .with_batch_size(100);
    let ctx = SessionContext::new_with_config(config);
    if jitson {
        jitson_datafusion::register(&ctx).unwrap();
    }
    ctx
}

async fn collect(ctx: &SessionContext, sql: &str) -> Result<Vec<RecordBatch>> {
    ctx.sql(sql).await?.collect().await
}

/// The rows as sorted text lines (the order of rows across partitions is not
/// part of a query's answer unless it says ORDER BY).
fn rows(batches: &[RecordBatch]) -> Vec<String> {
    let text = pretty_format_batches(batches).unwrap().to_string();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

const QUERIES: &[&str] = &[
    "SELECT * FROM t",
    "SELECT count(*) FROM t",
    "SELECT level, count(*), sum(get_field(request, 'bytes')) FROM t GROUP BY level",
    // Sums of floats depend on the order rows meet in; these are integers.
    "SELECT service, sum(CAST(latency_ms * 1000 AS BIGINT)), count(latency_ms), max(user_id) \
     FROM t WHERE level <> 'INFO' GROUP BY service",
    "SELECT message, tags FROM t WHERE get_field(request, 'status') >= 400",
    "SELECT ts FROM t ORDER BY ts DESC LIMIT 7",
    "SELECT count(*) FROM (SELECT user_id FROM t LIMIT 33)",
];

/// Runs every query with both formats over `create` (a `CREATE EXTERNAL TABLE
/// t …` statement) and checks the answers are equal; returns the number of rows
/// of `SELECT *`.
async fn same_answers(create: &str, partitions: usize, extra: &[&str]) -> usize {
    let theirs = context(partitions, false);
    let ours = context(partitions, true);
    theirs.sql(create).await.unwrap();
    ours.sql(create).await.unwrap();
    let plan = collect(&ours, "EXPLAIN SELECT * FROM t").await.unwrap();
    let plan = pretty_format_batches(&plan).unwrap().to_string();
    assert!(plan.contains("reader=jitson"), "{plan}");
    let mut total = 0;
    for sql in QUERIES.iter().chain(extra) {
        let expected = collect(&theirs, sql).await;
        let got = collect(&ours, sql).await;
        match (expected, got) {
            (Ok(expected), Ok(got)) => {
                assert_eq!(
                    rows(&got),
                    rows(&expected),
                    "{sql} at {partitions} partitions over {create}"
                );
                if *sql == "SELECT * FROM t" {
                    total = got.iter().map(RecordBatch::num_rows).sum();
                }
            }
            (Err(e), _) => panic!("{sql}: DataFusion failed: {e}"),
            (Ok(_), Err(e)) => panic!("{sql}: jitson failed: {e}"),
        }
    }
    total
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_file_at_every_partition_count() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("logs.json");
    write(&file, &logs::generate_logs(1500));
    for partitions in [1, 2, 4] {
        let create = format!(
            "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}'",
            file.display()
        );
        assert_eq!(same_answers(&create, partitions, &[]).await, 1500);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_files_one_without_a_final_newline_and_one_empty() {
    let dir = tempfile::tempdir().unwrap();
    let all = logs::generate_logs(900);
    let cut1 = 300 * all.len() / 900;
    let cut1 = cut1 + all[cut1..].iter().position(|&b| b == b'\n').unwrap() + 1;
    write(&dir.path().join("a.json"), &all[..cut1]);
    // No newline after the last record.
    write(&dir.path().join("b.json"), &all[cut1..all.len() - 1]);
    write(&dir.path().join("c.json"), b"");
    for partitions in [1, 2, 4] {
        let create = format!(
            "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}/'",
            dir.path().display()
        );
        assert_eq!(same_answers(&create, partitions, &[]).await, 900);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_compression() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("logs.json");
    write(&plain, &logs::generate_logs(400));
    let writer = context(1, false);
    writer
        .sql(&format!(
            "CREATE EXTERNAL TABLE src STORED AS JSON LOCATION '{}'",
            plain.display()
        ))
        .await
        .unwrap();
    for (codec, ext) in [
        ("gzip", "gz"),
        ("bzip2", "bz2"),
        ("xz", "xz"),
        ("zstd", "zst"),
    ] {
        let file = dir.path().join(format!("{codec}/logs.json.{ext}"));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        collect(
            &writer,
            &format!(
                "COPY (SELECT * FROM src) TO '{}' STORED AS JSON OPTIONS ('format.compression' '{codec}')",
                file.display()
            ),
        )
        .await
        .unwrap();
        for partitions in [1, 2] {
            let create = format!(
                "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}' OPTIONS ('format.compression' '{codec}')",
                file.display()
            );
            assert_eq!(same_answers(&create, partitions, &[]).await, 400, "{codec}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_array_files() {
    let dir = tempfile::tempdir().unwrap();
    let lines = logs::generate_logs(300);
    let lines: Vec<&[u8]> = lines
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut array = b"[\n  ".to_vec();
    array.extend(lines.join(&b",\n  "[..]));
    array.extend(b"\n]\n");
    write(&dir.path().join("logs.json"), &array);
    for partitions in [1, 2] {
        let create = format!(
            "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}/' OPTIONS ('format.newline_delimited' 'false')",
            dir.path().display()
        );
        // Array files are not split into ranges: DataFusion refuses a ranged
        // array scan, so turn the repartitioning off for this table.
        let theirs = context(partitions, false);
        let ours = context(partitions, true);
        for ctx in [&theirs, &ours] {
            ctx.sql("SET datafusion.optimizer.repartition_file_scans = false")
                .await
                .unwrap();
            ctx.sql(&create).await.unwrap();
        }
        for sql in QUERIES {
            let expected = collect(&theirs, sql).await.unwrap();
            let got = collect(&ours, sql).await.unwrap();
            assert_eq!(rows(&got), rows(&expected), "{sql}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partition_columns() {
    let dir = tempfile::tempdir().unwrap();
    let all = logs::generate_logs(600);
    let half = all.len() / 2;
    let half = half + all[half..].iter().position(|&b| b == b'\n').unwrap() + 1;
    write(&dir.path().join("year=2024/a.json"), &all[..half]);
    write(&dir.path().join("year=2025/b.json"), &all[half..]);
    for partitions in [1, 2, 4] {
        let create = format!(
            "CREATE EXTERNAL TABLE t STORED AS JSON PARTITIONED BY (year) LOCATION '{}/'",
            dir.path().display()
        );
        let extra = [
            "SELECT year, count(*) FROM t GROUP BY year",
            "SELECT count(*) FROM t WHERE year = '2025'",
            "SELECT year, level FROM t",
        ];
        assert_eq!(same_answers(&create, partitions, &extra).await, 600);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn object_stores_that_return_tiny_chunks() {
    let data = logs::generate_logs(60);
    for chunk in [1, 2, 3, 5, 8, 13, 16] {
        let inner = Arc::new(InMemory::new());
        let path = object_store::path::Path::from("logs.json");
        inner
            .put(&path, PutPayload::from(data.clone()))
            .await
            .unwrap();
        let store: Arc<dyn ObjectStore> = Arc::new(ChunkedStore::new(inner, chunk));
        let url = url::Url::parse("memory://chunked/").unwrap();
        for partitions in [1, 2, 4] {
            let theirs = context(partitions, false);
            let ours = context(partitions, true);
            for ctx in [&theirs, &ours] {
                ctx.register_object_store(&url, Arc::clone(&store));
                ctx.sql(
                    "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION 'memory://chunked/logs.json'",
                )
                .await
                .unwrap();
            }
            for sql in QUERIES {
                let expected = collect(&theirs, sql).await.unwrap();
                let got = collect(&ours, sql).await.unwrap();
                assert_eq!(
                    rows(&got),
                    rows(&expected),
                    "{sql}, chunks of {chunk}, {partitions} partitions"
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_record_names_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = logs::generate_logs(400);
    // Break record 250 (line 251): its status becomes a string.
    let mut line_starts = vec![0];
    line_starts.extend(
        data.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1),
    );
    let start = line_starts[250];
    let at = start + find(&data[start..], b"\"status\":").unwrap() + 9;
    let digits = data[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    data.splice(at..at + digits, b"\"x\"".iter().copied());
    let file = dir.path().join("broken.json");
    write(&file, &data);
    for partitions in [1, 2, 4] {
        let ctx = context(partitions, true);
        // Inference reads the first 100 records, which are sound.
        ctx.sql(&format!(
            "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}' \
             OPTIONS ('format.schema_infer_max_rec' '100')",
            file.display()
        ))
        .await
        .unwrap();
        let e = collect(&ctx, "SELECT max(get_field(request, 'status')) FROM t")
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("broken.json"), "{e}");
        assert!(e.contains("line 251"), "{partitions} partitions: {e}");
        assert!(e.contains(&format!("byte {at}")), "{e}");
        assert!(e.contains("$.request.status"), "{e}");
        assert!(e.contains("column `request.status`: Int64"), "{e}");
        // The context serves the next query.
        let ok = collect(&ctx, "SELECT 1").await.unwrap();
        assert_eq!(ok[0].num_rows(), 1);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_writes_arrow_json_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("logs.json");
    write(&file, &logs::generate_logs(500));
    let mut outputs = Vec::new();
    for jitson in [false, true] {
        let ctx = context(1, jitson);
        ctx.sql(&format!(
            "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}'",
            file.display()
        ))
        .await
        .unwrap();
        let out = dir.path().join(format!("out-{jitson}.json"));
        collect(
            &ctx,
            &format!(
                "COPY (SELECT * FROM t) TO '{}' STORED AS JSON",
                out.display()
            ),
        )
        .await
        .unwrap();
        outputs.push(std::fs::read(&out).unwrap());
    }
    assert!(!outputs[0].is_empty());
    assert!(outputs[0] == outputs[1], "COPY wrote different bytes");
}

/// `DataFrame::write_json` names DataFusion's format in its plan; `register`
/// reroutes it to jitson's sink (shown in the physical plan), with the same
/// bytes and the same options (here gzip).
#[tokio::test]
async fn write_json_goes_through_jitson() {
    use datafusion::common::config::JsonOptions;
    use datafusion::common::parsers::CompressionTypeVariant;
    use datafusion::dataframe::DataFrameWriteOptions;
    use datafusion::physical_plan::displayable;

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("logs.json");
    write(&file, &logs::generate_logs(300));
    let mut outputs = Vec::new();
    for jitson in [false, true] {
        let ctx = context(1, jitson);
        if jitson {
            // Twice: the rule is installed once.
            jitson_datafusion::register(&ctx).unwrap();
        }
        let df = ctx
            .read_json(file.to_str().unwrap(), JsonReadOptions::default())
            .await
            .unwrap();
        let out = dir.path().join(format!("out-{jitson}.json.gz"));
        let options = JsonOptions {
            compression: CompressionTypeVariant::GZIP,
            ..JsonOptions::default()
        };
        // The plan write_json builds, planned by this context.
        let plan = datafusion::logical_expr::LogicalPlanBuilder::copy_to(
            df.logical_plan().clone(),
            out.to_str().unwrap().into(),
            datafusion::datasource::file_format::format_as_file_type(Arc::new(
                datafusion::datasource::file_format::json::JsonFormatFactory::new_with_options(
                    options.clone(),
                ),
            )),
            Default::default(),
            vec![],
        )
        .unwrap()
        .build()
        .unwrap();
        let physical = ctx.state().create_physical_plan(&plan).await.unwrap();
        let text = displayable(physical.as_ref()).indent(true).to_string();
        assert_eq!(text.contains("JitsonSink"), jitson, "{text}");
        df.write_json(
            out.to_str().unwrap(),
            DataFrameWriteOptions::new(),
            Some(options),
        )
        .await
        .unwrap();
        let mut text = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&out).unwrap()),
            &mut text,
        )
        .unwrap();
        outputs.push(text);
    }
    assert_eq!(outputs[0].iter().filter(|&&b| b == b'\n').count(), 300);
    assert!(outputs[0] == outputs[1], "write_json wrote different bytes");
}

/// EXPLAIN in the tree format: jitson's scan shows `reader: jitson` as a line
/// of its own, and every line of DataFusion's own node (`files: 1`,
/// `format: json`) as DataFusion shows it. The reader used to be written as
/// `, reader=jitson` in every format, which the tree format glued to the next
/// `key=value` line (`, reader: jitsonfiles=1`), losing `files: 1`. Found by
/// DataFusion's explain_tree.slt (scripts/sqllogictest.sh).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tree_explain_shows_the_reader_on_a_line_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.json");
    write(&file, b"{\"a\":1}\n{\"a\":2}\n");
    let mut plans = Vec::new();
    for jitson in [false, true] {
        let ctx = context(1, jitson);
        ctx.sql("SET datafusion.explain.format = 'tree'")
            .await
            .unwrap();
        ctx.sql(&format!(
            "CREATE EXTERNAL TABLE t STORED AS JSON LOCATION '{}'",
            file.display()
        ))
        .await
        .unwrap();
        let plan = collect(&ctx, "EXPLAIN SELECT a FROM t").await.unwrap();
        let plan = plan[0]
            .column(1)
            .as_any()
            .downcast_ref::<datafusion::arrow::array::StringArray>()
            .unwrap()
            .value(0)
            .to_string();
        plans.push(plan);
    }
    let (theirs, ours) = (&plans[0], &plans[1]);
    let line = |plan: &str, text: &str| {
        plan.lines()
            .any(|l| l.trim_matches(|c: char| c == '│' || c == ' ') == text)
    };
    assert!(
        line(theirs, "files: 1") && line(theirs, "format: json"),
        "{theirs}"
    );
    assert!(line(ours, "reader: jitson"), "{ours}");
    let without_reader: Vec<&str> = ours
        .lines()
        .filter(|l| !l.contains("reader: jitson"))
        .collect();
    assert_eq!(
        without_reader,
        theirs.lines().collect::<Vec<_>>(),
        "\n{ours}\n{theirs}"
    );
}

/// The cache of compiled schemas keeps at most its bound: tables of distinct
/// schemas created, queried and dropped push the oldest out (their code goes
/// back once no decoder holds it), and one read again after that is counted
/// as a recompile. Other tests of this binary share the cache, so counts are
/// compared as at least what this test caused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_of_compiled_schemas_is_bounded() {
    use jitson_datafusion::cache;
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(1, true);
    let table = |i: usize| format!("churn_{i}");
    for i in 0..12 {
        // A schema of its own per table: a column named after it (`SELECT *`
        // below, so the projected schema is the whole one).
        let line = format!("{{\"id\":{i},\"c{i}\":\"v{i}\"}}\n");
        write(
            &dir.path().join(format!("{}.json", table(i))),
            line.as_bytes(),
        );
    }
    let query = async |i: usize| {
        let path = dir.path().join(format!("{}.json", table(i)));
        let create = format!(
            "CREATE EXTERNAL TABLE {} STORED AS JSON LOCATION '{}'",
            table(i),
            path.display()
        );
        ctx.sql(&create).await.unwrap();
        let got = collect(&ctx, &format!("SELECT * FROM {}", table(i)))
            .await
            .unwrap();
        assert_eq!(got.iter().map(RecordBatch::num_rows).sum::<usize>(), 1);
        ctx.sql(&format!("DROP TABLE {}", table(i))).await.unwrap();
    };
    cache::set_capacity(4);
    let before = cache::cache_stats();
    for i in 0..12 {
        query(i).await;
        assert!(cache::cached_schemas() <= 4);
    }
    query(0).await;
    let after = cache::cache_stats();
    cache::set_capacity(cache::CAPACITY);
    assert_eq!((after.capacity, cache::capacity()), (4, cache::CAPACITY));
    assert!(
        after.compiles >= before.compiles + 13,
        "{before:?} {after:?}"
    );
    assert!(
        after.evictions >= before.evictions + 9,
        "{before:?} {after:?}"
    );
    assert!(
        after.recompiles_after_eviction > before.recompiles_after_eviction,
        "{before:?} {after:?}"
    );
}

/// `JitsonFormat::with_validate_skipped(false)`: a member no column of the
/// query reads is skipped without being validated, so a malformed one is no
/// error; by default it is, as in DataFusion's own reader. The answer over
/// sound records is the same either way.
#[tokio::test]
async fn unread_members_are_validated_unless_asked_not_to() {
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::datasource::listing::{
        ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
    };
    use jitson_datafusion::JitsonFormat;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("members.json");
    write(
        &file,
        b"{\"id\": 1, \"x\": {\"a\": [1, 2]}, \"s\": \"ok\"}\n\
          {\"id\": 2, \"x\": {\"a\": [tru, 2 3]}, \"s\": \"\\q\"}\n",
    );
    let inner = DataType::Struct(
        vec![Field::new(
            "a",
            DataType::new_list(DataType::Int64, true),
            true,
        )]
        .into(),
    );
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("x", inner, true),
        Field::new("s", DataType::Utf8, true),
    ]));
    for validate in [true, false] {
        let ctx = context(1, true);
        let format = JitsonFormat::default().with_validate_skipped(validate);
        let options = ListingOptions::new(Arc::new(format)).with_file_extension(".json");
        let url = ListingTableUrl::parse(file.to_str().unwrap()).unwrap();
        let config = ListingTableConfig::new(url)
            .with_listing_options(options)
            .with_schema(Arc::clone(&schema));
        let table = ListingTable::try_new(config).unwrap();
        ctx.register_table("t", Arc::new(table)).unwrap();
        let got = collect(&ctx, "SELECT sum(id) FROM t").await;
        if validate {
            let e = got.unwrap_err().to_string();
            assert!(e.contains("line 2") && e.contains("$.x"), "{e}");
        } else {
            let lines = rows(&got.unwrap());
            assert!(
                lines.iter().any(|l| l.trim_matches(['|', ' ']) == "3"),
                "{lines:?}"
            );
        }
        // Reading the member validates it either way.
        let e = collect(&ctx, "SELECT x FROM t")
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("$.x.a"), "{e}");
    }
}

/// A `LIMIT` under the batch size reaches the decoder: the scan decodes the
/// rows it asked for and no record after them, so a malformed record further
/// on (within the first batch) is never read. DataFusion's own JSON decodes
/// whole batches, and fails on it. Without a limit both fail, with the line.
#[tokio::test]
async fn a_limit_stops_the_decoder() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..20 {
        text.push_str(&format!("{{\"a\": {i}, \"b\": \"r{i}\"}}\n"));
    }
    text.push_str("{\"a\": oops}\n");
    write(&dir.path().join("t.json"), text.as_bytes());
    let create = format!(
        "CREATE EXTERNAL TABLE t (a BIGINT, b VARCHAR) STORED AS JSON LOCATION '{}/'",
        dir.path().display()
    );
    // One partition: the file is one scan, with the limit pushed into it.
    let (theirs, ours) = (context(1, false), context(1, true));
    theirs.sql(&create).await.unwrap();
    ours.sql(&create).await.unwrap();
    for sql in [
        "SELECT a, b FROM t LIMIT 5",
        "SELECT count(*) FROM (SELECT a FROM t LIMIT 20)",
    ] {
        let plan = collect(&ours, &format!("EXPLAIN {sql}")).await.unwrap();
        let plan = pretty_format_batches(&plan).unwrap().to_string();
        assert!(
            plan.contains("limit="),
            "the limit is pushed into the scan: {plan}"
        );
        let e = collect(&theirs, sql).await.unwrap_err().to_string();
        assert!(
            e.contains("oops") || e.contains("ncountered"),
            "DataFusion's own: {e}"
        );
    }
    let got = rows(&collect(&ours, "SELECT a, b FROM t LIMIT 5").await.unwrap());
    let expected: Vec<String> = {
        let mut lines = vec![
            "+---+----+".to_owned(),
            "+---+----+".to_owned(),
            "+---+----+".to_owned(),
            "| a | b  |".to_owned(),
        ];
        lines.extend((0..5).map(|i| format!("| {i} | r{i} |")));
        lines.sort();
        lines
    };
    assert_eq!(got, expected);
    let got = rows(
        &collect(&ours, "SELECT count(*) FROM (SELECT a FROM t LIMIT 20)")
            .await
            .unwrap(),
    );
    assert!(got.iter().any(|l| l.contains("| 20 ")), "{got:?}");
    let e = collect(&ours, "SELECT a FROM t")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 21"), "{e}");
}
