//! jitson as DataFusion's JSON format.
//!
//! [`register`] makes every JSON table of a `SessionContext` — `CREATE EXTERNAL
//! TABLE … STORED AS JSON`, `COPY … STORED AS JSON`, URL tables, and
//! [`SessionContextExt::read_jitson`] / [`register_jitson`](SessionContextExt::register_jitson)
//! (the mirrors of `read_json` / `register_json`, which name DataFusion's own
//! format and so cannot be rerouted) — scan through jitson-arrow's compiled
//! decoders and write through its Arrow writer (`DataFrame::write_json`
//! too, through [`JitsonWriteJson`]).
//!
//! ```no_run
//! # async fn run() -> datafusion::common::Result<()> {
//! use datafusion::prelude::*;
//! use jitson_datafusion::SessionContextExt;
//!
//! let ctx = SessionContext::new();
//! jitson_datafusion::register(&ctx)?;
//! ctx.register_jitson("logs", "data/logs.json", JsonReadOptions::default()).await?;
//! ctx.sql("SELECT status, count(*) FROM logs GROUP BY status").await?.show().await?;
//! # Ok(())
//! # }
//! ```
//!
//! What the scan does is DataFusion's `JsonSource` with another decoder: the
//! same byte ranges of NDJSON files (so `repartition_file_scans` splits files
//! the same way), the same compressions, JSON-array files, partition columns,
//! limits, and DataFusion's own schema inference. The projection is compiled
//! into the decoder, and compiled decoders are cached for the process (see
//! [`cache`]). A record that fails reports its file, line, column, byte, JSON
//! path, column and Arrow type ([`ScanError`]).

#![deny(missing_docs)]

pub mod cache;
mod error;
mod format;
mod range;
mod source;
mod write;

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::context::SessionContext;
use datafusion::prelude::JsonReadOptions;

pub use error::ScanError;
pub use format::{JitsonFormat, JitsonFormatFactory, JitsonSerializer, JitsonSink};
pub use source::JitsonSource;
pub use write::JitsonWriteJson;

/// Makes jitson the JSON format of `ctx`: every table, query and `COPY` that
/// resolves the extension "json" through the session's file formats uses
/// [`JitsonFormat`] from now on, and `DataFrame::write_json`, which names
/// DataFusion's format itself, is rerouted by [`JitsonWriteJson`]. Calling it
/// again changes nothing.
pub fn register(ctx: &SessionContext) -> Result<()> {
    let state = ctx.state_ref();
    let mut state = state.write();
    state.register_file_format(Arc::new(JitsonFormatFactory::new()), true)?;
    let installed = state
        .analyzer()
        .rules
        .iter()
        .any(|rule| rule.name() == JitsonWriteJson::NAME);
    if !installed {
        state.add_analyzer_rule(Arc::new(JitsonWriteJson));
    }
    Ok(())
}

/// `read_json` and `register_json` with jitson's format.
#[allow(async_fn_in_trait)]
pub trait SessionContextExt {
    /// A `DataFrame` over the JSON files at `table_paths` (a file, a directory,
    /// or a list of them), as `SessionContext::read_json`.
    async fn read_jitson(
        &self,
        table_paths: impl AsRef<str>,
        options: JsonReadOptions<'_>,
    ) -> Result<DataFrame>;

    /// Registers the JSON files at `table_path` as table `name`, as
    /// `SessionContext::register_json`.
    async fn register_jitson(
        &self,
        name: &str,
        table_path: impl AsRef<str>,
        options: JsonReadOptions<'_>,
    ) -> Result<()>;
}

impl SessionContextExt for SessionContext {
    async fn read_jitson(
        &self,
        table_paths: impl AsRef<str>,
        options: JsonReadOptions<'_>,
    ) -> Result<DataFrame> {
        let table = listing_table(self, table_paths.as_ref(), &options).await?;
        self.read_table(Arc::new(table))
    }

    async fn register_jitson(
        &self,
        name: &str,
        table_path: impl AsRef<str>,
        options: JsonReadOptions<'_>,
    ) -> Result<()> {
        let listing = listing_options(self, &options);
        self.register_listing_table(
            name,
            table_path,
            listing,
            options.schema.map(|s| Arc::new(s.clone())),
            None,
        )
        .await
    }
}

/// The listing table of jitson's format over `table_paths` (a file or a
/// directory), its schema given in `options` or inferred: what
/// [`SessionContextExt::read_jitson`] reads, and what a wrapper (Ballista's
/// table) starts from.
pub async fn listing_table(
    ctx: &SessionContext,
    table_paths: &str,
    options: &JsonReadOptions<'_>,
) -> Result<ListingTable> {
    let url = ListingTableUrl::parse(table_paths)?;
    let listing = listing_options(ctx, options);
    let config = ListingTableConfig::new(url).with_listing_options(listing);
    let config = match options.schema {
        Some(schema) => config.with_schema(Arc::new(schema.clone())),
        None => config.infer_schema(&ctx.state()).await?,
    };
    Ok(ListingTable::try_new(config)?
        .with_cache(ctx.runtime_env().cache_manager.get_file_statistic_cache()))
}

/// DataFusion's listing options for `options`, with [`JitsonFormat`].
fn listing_options(ctx: &SessionContext, options: &JsonReadOptions<'_>) -> ListingOptions {
    let format = JitsonFormat::default()
        .with_options(ctx.copied_table_options().json)
        .with_schema_infer_max_rec(options.schema_infer_max_records)
        .with_file_compression_type(options.file_compression_type)
        .with_newline_delimited(options.newline_delimited);
    ListingOptions::new(Arc::new(format))
        .with_file_extension(options.file_extension)
        .with_table_partition_cols(options.table_partition_cols.clone())
        .with_file_sort_order(options.file_sort_order.clone())
}
