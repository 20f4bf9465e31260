//! URL tables (`SELECT * FROM 'data/logs.json'`) that can travel to a
//! Ballista scheduler.
//!
//! DataFusion's `SessionContext::enable_url_table` makes such a table a
//! `ListingTable` (its `DynamicListTableFactory`, over the session's file
//! formats), which `datafusion-proto` refuses when the format is not one of
//! DataFusion's own. [`enable_url_table`] installs the same factory with one
//! step more: a listing table of jitson's format is wrapped as a
//! [`JitsonTable`](crate::JitsonTable), which the logical codec sends.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{DynamicFileCatalog, TableProvider, UrlTableFactory};
use datafusion::common::Result;
use datafusion::datasource::dynamic_file::DynamicListTableFactory;
use datafusion::execution::context::SessionContext;

use crate::table::wrap_table;

/// DataFusion's URL table factory, its jitson listing tables wrapped as
/// [`JitsonTable`](crate::JitsonTable)s.
#[derive(Debug, Default)]
pub struct JitsonUrlTableFactory {
    inner: DynamicListTableFactory,
}

#[async_trait]
impl UrlTableFactory for JitsonUrlTableFactory {
    async fn try_new(&self, url: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        Ok(self.inner.try_new(url).await?.map(wrap_table))
    }
}

/// `ctx` with URL tables enabled, as `SessionContext::enable_url_table`, for
/// a Ballista session: a URL whose extension is "json" (jitson's format in
/// [`session_state`](crate::session_state)) is read through jitson on the
/// cluster. Other formats are DataFusion's listing tables, as before.
pub fn enable_url_table(ctx: SessionContext) -> SessionContext {
    let catalogs = Arc::clone(ctx.state_ref().read().catalog_list());
    let factory = Arc::new(JitsonUrlTableFactory::default());
    let catalogs = Arc::new(DynamicFileCatalog::new(
        catalogs,
        Arc::clone(&factory) as Arc<dyn UrlTableFactory>,
    ));
    let session_id = ctx.session_id();
    let ctx: SessionContext = ctx
        .into_state_builder()
        .with_session_id(session_id)
        .with_catalog_list(catalogs)
        .build()
        .into();
    // The factory finds the session (its formats, object stores) through a
    // weak reference, as DataFusion's own does.
    factory
        .inner
        .session_store()
        .with_state(ctx.state_weak_ref());
    ctx
}
