//! jitson's JSON format in [Ballista](https://datafusion.apache.org/ballista/),
//! DataFusion's distributed scheduler.
//!
//! A Ballista client sends its logical plan to the scheduler, which plans
//! stages and sends them to executors; both hops go through
//! `datafusion-proto`, which knows DataFusion's own formats only. This crate
//! supplies what a cluster needs to scan JSON with jitson:
//!
//! - [`JitsonTable`], the table the client plans over (a `ListingTable` of
//!   [`JitsonFormat`](jitson_datafusion::JitsonFormat) in a wrapper the codec
//!   recognises), and [`JitsonTableFactory`] for `CREATE EXTERNAL TABLE …
//!   STORED AS JSON`;
//! - [`JitsonLogicalCodec`] and [`JitsonPhysicalCodec`], which wrap Ballista's
//!   codecs (scans, `COPY … STORED AS JSON` and `INSERT INTO` run on the
//!   executors), and [`JitsonCopyOptions`], which keeps a `COPY`'s format
//!   options in the plan that travels;
//! - [`enable_url_table`], URL tables (`SELECT * FROM 'logs.json'`) that
//!   travel too;
//! - [`session_state`], the one session built by the client, the scheduler
//!   and every executor, and [`scheduler_config`] / [`executor_config`] for
//!   the `jitson-scheduler` and `jitson-executor` programs (every listener on
//!   127.0.0.1);
//! - [`BallistaJitsonExt`], `register_jitson` / `read_jitson` for a Ballista
//!   `SessionContext`.
//!
//! ```no_run
//! # async fn run() -> datafusion::common::Result<()> {
//! use ballista::prelude::SessionContextExt as _;
//! use datafusion::prelude::*;
//! use jitson_ballista::BallistaJitsonExt;
//!
//! // Scheduler and executor in this process; `remote_with_state` for a cluster.
//! let ctx = SessionContext::standalone_with_state(jitson_ballista::default_session_state()?).await?;
//! ctx.register_jitson("logs", "data/logs/", JsonReadOptions::default()).await?;
//! ctx.sql("SELECT level, count(*) FROM logs GROUP BY level").await?.show().await?;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod codec;
mod copy;
mod session;
mod table;
mod url;

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::dataframe::DataFrame;
use datafusion::execution::context::SessionContext;
use datafusion::prelude::JsonReadOptions;

pub use codec::{JitsonLogicalCodec, JitsonPhysicalCodec};
pub use copy::JitsonCopyOptions;
pub use session::{
    ExecutorPorts, LOCALHOST, default_session_state, executor_config, scheduler_config,
    session_config, session_state, with_jitson_codecs,
};
pub use table::{JitsonTable, JitsonTableFactory, wrap_table};
pub use url::{JitsonUrlTableFactory, enable_url_table};

/// `read_json` / `register_json` for a Ballista session, reading through
/// jitson: the tables are [`JitsonTable`]s, which the session's codecs can
/// send to the scheduler. (jitson-datafusion's own `register_jitson`
/// registers a bare `ListingTable`, which Ballista cannot serialise.)
#[allow(async_fn_in_trait)]
pub trait BallistaJitsonExt {
    /// A `DataFrame` over the JSON files at `table_path` (a file or a
    /// directory).
    async fn read_jitson(
        &self,
        table_path: impl AsRef<str>,
        options: JsonReadOptions<'_>,
    ) -> Result<DataFrame>;

    /// Registers the JSON files at `table_path` as table `name`.
    async fn register_jitson(
        &self,
        name: &str,
        table_path: impl AsRef<str>,
        options: JsonReadOptions<'_>,
    ) -> Result<()>;
}

impl BallistaJitsonExt for SessionContext {
    async fn read_jitson(
        &self,
        table_path: impl AsRef<str>,
        options: JsonReadOptions<'_>,
    ) -> Result<DataFrame> {
        let table = jitson_table(self, table_path.as_ref(), &options).await?;
        self.read_table(table)
    }

    async fn register_jitson(
        &self,
        name: &str,
        table_path: impl AsRef<str>,
        options: JsonReadOptions<'_>,
    ) -> Result<()> {
        let table = jitson_table(self, table_path.as_ref(), &options).await?;
        self.register_table(name, table)?;
        Ok(())
    }
}

/// The [`JitsonTable`] over `path`, its schema given or inferred.
async fn jitson_table(
    ctx: &SessionContext,
    path: &str,
    options: &JsonReadOptions<'_>,
) -> Result<Arc<JitsonTable>> {
    let table = jitson_datafusion::listing_table(ctx, path, options).await?;
    Ok(Arc::new(JitsonTable::try_new(Arc::new(table))?))
}
