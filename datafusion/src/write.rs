//! [`JitsonWriteJson`]: `DataFrame::write_json` through jitson's writer.
//!
//! `COPY … STORED AS JSON` finds its format through the session's file
//! formats, which [`register`](crate::register) points at jitson. But
//! `DataFrame::write_json` names DataFusion's own `JsonFormatFactory` in the
//! plan it builds (datafusion 55.2, `src/dataframe/mod.rs`), so without this
//! rule its files would be written by arrow-json, not by jitson-arrow's
//! writer.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::tree_node::Transformed;
use datafusion::config::ConfigOptions;
use datafusion::datasource::file_format::json::JsonFormatFactory;
use datafusion::datasource::file_format::{file_type_to_format, format_as_file_type};
use datafusion::logical_expr::LogicalPlan;
use datafusion::logical_expr::dml::CopyTo;
use datafusion::optimizer::AnalyzerRule;

use crate::JitsonFormatFactory;

/// Rewrites each `COPY` whose format is DataFusion's `JsonFormatFactory` (what
/// `DataFrame::write_json` builds) to [`JitsonFormatFactory`] with the same
/// options; the `COPY`'s own options, output and partitioning are kept.
/// Installed by [`register`](crate::register).
#[derive(Debug, Default)]
pub struct JitsonWriteJson;

impl JitsonWriteJson {
    /// The rule's name, as the analyzer lists it.
    pub const NAME: &'static str = "jitson_write_json";
}

impl AnalyzerRule for JitsonWriteJson {
    fn analyze(&self, plan: LogicalPlan, _: &ConfigOptions) -> Result<LogicalPlan> {
        plan.transform_up_with_subqueries(reroute).map(|t| t.data)
    }

    fn name(&self) -> &str {
        Self::NAME
    }
}

fn reroute(plan: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Copy(copy) = plan else {
        return Ok(Transformed::no(plan));
    };
    let factory = file_type_to_format(&copy.file_type)?;
    let Some(theirs) = factory.downcast_ref::<JsonFormatFactory>() else {
        return Ok(Transformed::no(LogicalPlan::Copy(copy)));
    };
    let ours = JitsonFormatFactory {
        options: theirs.options.clone(),
    };
    Ok(Transformed::yes(LogicalPlan::Copy(CopyTo {
        file_type: format_as_file_type(Arc::new(ours)),
        ..copy
    })))
}
