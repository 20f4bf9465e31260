//! Ballista standalone (scheduler and executor in this process) reading the
//! generated log set through jitson: every query equals local DataFusion's
//! own JSON reader, for a table registered with `register_jitson` and one
//! made by `CREATE EXTERNAL TABLE … STORED AS JSON`; a broken file fails its
//! query with the file and line, and the cluster serves the next query.

use ballista::prelude::SessionContextExt as _;
use datafusion::prelude::{JsonReadOptions, SessionContext};
use jitson_ballista::BallistaJitsonExt;

#[path = "../common/queries.rs"]
mod queries;

use queries::{BROKEN_QUERY, QUERIES, local_context, path_of, rows, write_data};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn standalone_equals_local_datafusion() -> datafusion::common::Result<()> {
    let dir = tempfile::tempdir()?;
    write_data(dir.path(), 20_000, 3)?;
    let local = local_context(dir.path()).await?;

    let state = jitson_ballista::default_session_state()?;
    let ctx = SessionContext::standalone_with_state(state).await?;
    ctx.register_jitson(
        "logs",
        path_of(&dir.path().join("logs")),
        JsonReadOptions::default(),
    )
    .await?;

    let plan = ctx
        .sql("EXPLAIN SELECT count(*) FROM logs")
        .await?
        .collect()
        .await?;
    let plan = datafusion::arrow::util::pretty::pretty_format_batches(&plan)?.to_string();
    assert!(
        plan.contains("reader=jitson"),
        "the scan is not jitson's:\n{plan}"
    );

    for sql in QUERIES {
        let expected = rows(&local, sql).await?;
        let got = rows(&ctx, sql).await?;
        assert_eq!(got, expected, "{sql}");
    }

    // The same table through the table factory.
    let create = format!(
        "CREATE EXTERNAL TABLE logs2 STORED AS JSON LOCATION '{}'",
        path_of(&dir.path().join("logs"))
    );
    ctx.sql(&create).await?.collect().await?;
    let sql = "SELECT level, count(*) AS n FROM logs2 GROUP BY level ORDER BY level";
    let expected = rows(&local, &sql.replace("logs2", "logs")).await?;
    assert_eq!(rows(&ctx, sql).await?, expected);

    // A broken record fails its query with the file and line...
    // (with the log set's schema: inference would stop at the broken line)
    let schema = ctx.table("logs").await?.schema().as_arrow().clone();
    let options = JsonReadOptions::default().schema(&schema);
    ctx.register_jitson("broken", path_of(&dir.path().join("broken")), options)
        .await?;
    let error = match rows(&ctx, BROKEN_QUERY).await {
        Ok(rows) => panic!("the broken file was read: {rows:?}"),
        Err(e) => e.to_string(),
    };
    assert!(error.contains("broken.json"), "no file in: {error}");
    assert!(queries::names_line(&error), "no line in: {error}");

    // ...and the cluster serves the next query.
    let expected = rows(&local, QUERIES[1]).await?;
    assert_eq!(rows(&ctx, QUERIES[1]).await?, expected);
    Ok(())
}
