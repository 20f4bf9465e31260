//! [`JitsonCopyOptions`], which moves the format options of `COPY … STORED AS
//! JSON OPTIONS (…)` into the plan's format, where they survive the trip to
//! the scheduler.
//!
//! `datafusion-proto` writes a `COPY`'s output URL, partition columns and
//! format, but not its `OPTIONS` map: the scheduler would plan the write with
//! its own defaults, and `COPY … OPTIONS ('format.compression' 'zstd')` through
//! Ballista would write an uncompressed file. The format travels (through
//! [`JitsonLogicalCodec`](crate::JitsonLogicalCodec), with its `JsonOptions`),
//! so the rule folds the `format.*` options into it before the plan leaves
//! the client.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::{ConfigFileType, ConfigOptions, TableOptions};
use datafusion::common::tree_node::Transformed;
use datafusion::datasource::file_format::{file_type_to_format, format_as_file_type};
use datafusion::logical_expr::LogicalPlan;
use datafusion::logical_expr::dml::CopyTo;
use datafusion::optimizer::AnalyzerRule;
use jitson_datafusion::JitsonFormatFactory;

/// Rewrites each `COPY … STORED AS JSON` whose format is
/// [`JitsonFormatFactory`] and whose `OPTIONS` hold `format.*` keys: the
/// format becomes a factory with those options applied (over the factory's
/// own options, or the session's default JSON options), and the keys leave
/// the map. Other options (`execution.keep_partition_by_columns`, …) stay
/// where they are. Applied twice, it changes nothing the second time.
#[derive(Debug, Default)]
pub struct JitsonCopyOptions;

impl AnalyzerRule for JitsonCopyOptions {
    fn analyze(&self, plan: LogicalPlan, config: &ConfigOptions) -> Result<LogicalPlan> {
        plan.transform_up_with_subqueries(|plan| fold(plan, config))
            .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "jitson_copy_options"
    }
}

fn fold(plan: LogicalPlan, config: &ConfigOptions) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Copy(copy) = plan else {
        return Ok(Transformed::no(plan));
    };
    let factory = file_type_to_format(&copy.file_type)?;
    let Some(factory) = factory.downcast_ref::<JitsonFormatFactory>() else {
        return Ok(Transformed::no(LogicalPlan::Copy(copy)));
    };
    let (format_options, other): (HashMap<_, _>, HashMap<_, _>) = copy
        .options
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .partition(|(k, _)| k.starts_with("format."));
    if format_options.is_empty() {
        return Ok(Transformed::no(LogicalPlan::Copy(copy)));
    }
    // As `JitsonFormatFactory::create` applies them on the planning node.
    let mut table_options = TableOptions::default_from_session_config(config);
    table_options.set_config_format(ConfigFileType::JSON);
    if let Some(options) = &factory.options {
        table_options.json = options.clone();
    }
    table_options.alter_with_string_hash_map(&format_options)?;
    let factory = JitsonFormatFactory::new_with_options(table_options.json);
    Ok(Transformed::yes(LogicalPlan::Copy(CopyTo {
        file_type: format_as_file_type(Arc::new(factory)),
        options: other,
        ..copy
    })))
}
