//! [`JitsonTable`], the table a Ballista session plans over jitson's format,
//! and [`JitsonTableFactory`], which makes one for `CREATE EXTERNAL TABLE …
//! STORED AS JSON`.
//!
//! Why a wrapper: Ballista ships the logical plan to its scheduler, and
//! `datafusion-proto` serialises a `ListingTable` only when its format is one
//! of DataFusion's five (Parquet, CSV, JSON, Avro, Arrow); any other format is
//! refused ("Error deserializing unknown file format") before an extension
//! codec is asked. A table of another type goes to the codec, so jitson's
//! listing tables travel as a [`JitsonTable`], which
//! [`JitsonLogicalCodec`](crate::JitsonLogicalCodec) knows how to write and
//! read back.

use std::any::Any;
use std::borrow::Cow;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::config::JsonOptions;
use datafusion::common::{Constraints, DataFusionError, Result, Statistics};
use datafusion::datasource::TableType;
use datafusion::datasource::listing::ListingTable;
use datafusion::datasource::provider::DefaultTableFactory;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{
    CreateExternalTable, Expr, LogicalPlan, TableProviderFilterPushDown,
};
use datafusion::physical_plan::ExecutionPlan;
use jitson_datafusion::JitsonFormat;

/// A `ListingTable` whose format is [`JitsonFormat`], in a wrapper that
/// Ballista's plan serialisation hands to [`JitsonLogicalCodec`](crate::JitsonLogicalCodec).
///
/// It plans, scans and reports exactly as the listing table it wraps.
#[derive(Debug)]
pub struct JitsonTable {
    listing: Arc<ListingTable>,
    options: JsonOptions,
}

impl JitsonTable {
    /// Wraps `listing`; fails if its format is not [`JitsonFormat`] (a table
    /// of DataFusion's own formats needs no wrapper).
    pub fn try_new(listing: Arc<ListingTable>) -> Result<Self> {
        let Some(format) = listing.options().format.downcast_ref::<JitsonFormat>() else {
            return Err(DataFusionError::Plan(format!(
                "JitsonTable wraps listing tables of jitson's JSON format, not of {:?}",
                listing.options().format
            )));
        };
        let options = format.options().clone();
        Ok(JitsonTable { listing, options })
    }

    /// The listing table.
    pub fn listing(&self) -> &Arc<ListingTable> {
        &self.listing
    }

    /// The options of the table's [`JitsonFormat`].
    pub fn json_options(&self) -> &JsonOptions {
        &self.options
    }
}

/// `provider` as a [`JitsonTable`] if it is a listing table of jitson's
/// format; otherwise `provider` itself.
pub fn wrap_table(provider: Arc<dyn TableProvider>) -> Arc<dyn TableProvider> {
    let any: Arc<dyn Any + Send + Sync> = Arc::clone(&provider) as _;
    match any.downcast::<ListingTable>() {
        Ok(listing) => match JitsonTable::try_new(listing) {
            Ok(table) => Arc::new(table),
            Err(_) => provider,
        },
        Err(_) => provider,
    }
}

#[async_trait]
impl TableProvider for JitsonTable {
    fn schema(&self) -> SchemaRef {
        self.listing.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.listing.constraints()
    }

    fn table_type(&self) -> TableType {
        self.listing.table_type()
    }

    fn get_table_definition(&self) -> Option<&str> {
        self.listing.get_table_definition()
    }

    fn get_logical_plan(&'_ self) -> Option<Cow<'_, LogicalPlan>> {
        self.listing.get_logical_plan()
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.listing.get_column_default(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.scan(state, projection, filters, limit).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.listing.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.listing.statistics()
    }

    async fn insert_into(
        &self,
        state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.insert_into(state, input, insert_op).await
    }
}

/// Makes the tables of `CREATE EXTERNAL TABLE … STORED AS JSON` (and `NDJSON`)
/// in a Ballista session: DataFusion's own factory builds the listing table
/// with the session's JSON format — [`JitsonFormat`] once
/// [`session_state`](crate::session_state) registered it — and the result is
/// wrapped as a [`JitsonTable`] so it can travel to the scheduler.
#[derive(Debug, Default)]
pub struct JitsonTableFactory {
    inner: DefaultTableFactory,
}

impl JitsonTableFactory {
    /// A factory over DataFusion's default one.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl TableProviderFactory for JitsonTableFactory {
    async fn create(
        &self,
        state: &dyn Session,
        cmd: &CreateExternalTable,
    ) -> Result<Arc<dyn TableProvider>> {
        let table = self.inner.create(state, cmd).await?;
        Ok(wrap_table(table))
    }
}
