//! The two extension codecs that carry jitson's scans between a Ballista
//! client, its scheduler and its executors.
//!
//! - [`JitsonLogicalCodec`] writes a [`JitsonTable`] (client → scheduler:
//!   paths, file schema, JSON options, file extension, partition columns,
//!   file sort order) and the [`JitsonFormatFactory`] of a `COPY … STORED AS
//!   JSON`.
//! - [`JitsonPhysicalCodec`] writes the `DataSourceExec` whose file source is
//!   a [`JitsonSource`] (scheduler → executors): DataFusion's own
//!   `FileScanConfig` message (files and ranges, schema, partition columns,
//!   projection, limit, statistics, orderings, batch size) plus what it leaves
//!   out, the compression, whether files are newline-delimited and whether the
//!   members no column reads are validated; and the
//!   `DataSinkExec` whose sink is a [`JitsonSink`] (`COPY … STORED AS JSON`,
//!   `INSERT INTO` a JSON table) with DataFusion's own `JsonSink` message —
//!   the `FileSinkConfig` and the writer options — plus the sink's required
//!   ordering and the URL the user wrote.
//!
//! Each wraps another codec — Ballista's own by default — and passes it every
//! node that is not jitson's. jitson's bytes start with a tag
//! (`jitson-table/1:` and so on), so decoding never mistakes them for the
//! inner codec's protobuf.

use std::sync::Arc;

use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::{DataType, Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::common::config::JsonOptions;
use datafusion::common::parsers::CompressionTypeVariant;
use datafusion::common::{DataFusionError, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::json::{JsonFormatFactory, JsonSink};
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::physical_plan::{FileScanConfig, FileScanConfigBuilder, FileSink};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_expr_common::sort_expr::{LexRequirement, PhysicalSortExpr};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::PhysicalExpr;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::logical_plan::file_formats::JsonLogicalExtensionCodec;
use datafusion_proto::logical_plan::from_proto::parse_sorts;
use datafusion_proto::logical_plan::to_proto::serialize_sorts;
use datafusion_proto::physical_plan::from_proto::{
    parse_protobuf_file_scan_config, parse_table_schema_from_proto,
};
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{
    PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf;
use jitson_datafusion::{JitsonFormat, JitsonFormatFactory, JitsonSink, JitsonSource};
use prost::Message;

use crate::table::JitsonTable;

/// Tags the bytes of a [`JitsonTable`].
const TABLE_TAG: &[u8] = b"jitson-table/1:";
/// Tags the bytes of a [`JitsonFormatFactory`].
const FORMAT_TAG: &[u8] = b"jitson-format/1:";
/// Tags the bytes of a scan of [`JitsonSource`].
const SCAN_TAG: &[u8] = b"jitson-scan/1:";
/// Tags the bytes of a `DataSinkExec` writing through [`JitsonSink`].
const SINK_TAG: &[u8] = b"jitson-sink/1:";

/// A [`JitsonTable`] on the wire.
#[derive(Clone, PartialEq, Message)]
struct TableNode {
    /// The table's URLs, as `ListingTableUrl` prints them.
    #[prost(string, repeated, tag = "1")]
    paths: Vec<String>,
    /// The JSON options of its [`JitsonFormat`].
    #[prost(message, optional, tag = "2")]
    options: Option<datafusion_proto_common::JsonOptions>,
    /// Files whose names end otherwise are not read.
    #[prost(string, tag = "3")]
    file_extension: String,
    /// Hive-style partition columns (their values come from the paths).
    #[prost(message, repeated, tag = "4")]
    partition_columns: Vec<protobuf::PartitionColumn>,
    /// Orders the files are known to be sorted in.
    #[prost(message, repeated, tag = "5")]
    file_sort_order: Vec<protobuf::SortExprNodeCollection>,
}

/// A `DataSourceExec` over a [`JitsonSource`] on the wire.
#[derive(Clone, PartialEq, Message)]
struct ScanNode {
    /// DataFusion's description of the scan, as its own JSON scan sends it.
    #[prost(message, optional, tag = "1")]
    base_conf: Option<protobuf::FileScanExecConf>,
    /// `false`: each file is one JSON array.
    #[prost(bool, tag = "2")]
    newline_delimited: bool,
    /// `UNCOMPRESSED`, `GZIP`, `BZIP2`, `XZ` or `ZSTD`.
    #[prost(string, tag = "3")]
    compression: String,
    /// `JitsonSource::with_validate_skipped(false)` (absent: `false`, the
    /// default validation).
    #[prost(bool, tag = "4")]
    skip_unvalidated: bool,
}

/// A `DataSinkExec` over a [`JitsonSink`] on the wire (its input travels
/// beside it, as the extension node's input).
#[derive(Clone, PartialEq, Message)]
struct SinkNode {
    /// The files to write and the writer options, as DataFusion's own JSON
    /// sink sends them.
    #[prost(message, optional, tag = "1")]
    sink: Option<protobuf::JsonSink>,
    /// The order the input must arrive in, if any.
    #[prost(message, optional, tag = "2")]
    sort_order: Option<protobuf::PhysicalSortExprNodeCollection>,
    /// The output URL as the user wrote it (`FileSinkConfig`'s message leaves
    /// it out; plans display it).
    #[prost(string, tag = "3")]
    original_url: String,
}

/// `bytes` after `tag`, if they start with it.
fn strip<'a>(bytes: &'a [u8], tag: &[u8]) -> Option<&'a [u8]> {
    bytes.strip_prefix(tag)
}

fn decode_error(what: &str, e: prost::DecodeError) -> DataFusionError {
    DataFusionError::Internal(format!("jitson-ballista: cannot decode {what}: {e}"))
}

/// The logical extension codec of a Ballista session reading JSON through
/// jitson: [`JitsonTable`]s and [`JitsonFormatFactory`]s itself, everything
/// else through the codec it wraps (Ballista's own by default).
#[derive(Debug)]
pub struct JitsonLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl Default for JitsonLogicalCodec {
    fn default() -> Self {
        Self::new(Arc::new(BallistaLogicalExtensionCodec::default()))
    }
}

impl JitsonLogicalCodec {
    /// A codec that passes what is not jitson's to `inner`.
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> Self {
        JitsonLogicalCodec { inner }
    }

    fn encode_table(&self, table: &JitsonTable, buf: &mut Vec<u8>) -> Result<()> {
        let listing = table.listing();
        let options = listing.options();
        let partition_columns = options
            .table_partition_cols
            .iter()
            .map(|(name, data_type)| {
                Ok(protobuf::PartitionColumn {
                    name: name.clone(),
                    arrow_type: Some(data_type.try_into().map_err(|e| {
                        DataFusionError::Internal(format!(
                            "jitson-ballista: partition column `{name}`: {e}"
                        ))
                    })?),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let file_sort_order = options
            .file_sort_order
            .iter()
            .map(|order| {
                Ok(protobuf::SortExprNodeCollection {
                    sort_expr_nodes: serialize_sorts(order, self)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let node = TableNode {
            paths: listing
                .table_paths()
                .iter()
                .map(|url| url.to_string())
                .collect(),
            options: Some(table.json_options().try_into()?),
            file_extension: options.file_extension.clone(),
            partition_columns,
            file_sort_order,
        };
        buf.extend_from_slice(TABLE_TAG);
        node.encode(buf)
            .map_err(|e| DataFusionError::Internal(format!("jitson-ballista: {e}")))
    }

    fn decode_table(
        &self,
        bytes: &[u8],
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let node = TableNode::decode(bytes).map_err(|e| decode_error("a jitson table", e))?;
        let options = match &node.options {
            Some(options) => JsonOptions::try_from(options)?,
            None => JsonOptions::default(),
        };
        let partition_columns = node
            .partition_columns
            .iter()
            .map(|column| {
                let arrow_type = column.arrow_type.as_ref().ok_or_else(|| {
                    DataFusionError::Internal(format!(
                        "jitson-ballista: partition column `{}` has no type",
                        column.name
                    ))
                })?;
                Ok((column.name.clone(), DataType::try_from(arrow_type)?))
            })
            .collect::<Result<Vec<_>>>()?;
        let file_sort_order = node
            .file_sort_order
            .iter()
            .map(|order| parse_sorts(&order.sort_expr_nodes, ctx, self).map_err(Into::into))
            .collect::<Result<Vec<_>>>()?;
        // The scan node carries the table's schema: the file's columns, then
        // the partition columns, which the listing table adds back itself.
        let file_fields = schema
            .fields()
            .iter()
            .filter(|f| !partition_columns.iter().any(|(name, _)| name == f.name()))
            .cloned()
            .collect::<Vec<_>>();
        let file_schema = Arc::new(Schema::new_with_metadata(
            file_fields,
            schema.metadata().clone(),
        ));
        let paths = node
            .paths
            .iter()
            .map(ListingTableUrl::parse)
            .collect::<Result<Vec<_>>>()?;
        let format = JitsonFormat::default().with_options(options);
        let listing_options = ListingOptions::new(Arc::new(format))
            .with_file_extension(node.file_extension)
            .with_table_partition_cols(partition_columns)
            .with_file_sort_order(file_sort_order);
        let config = ListingTableConfig::new_with_multi_paths(paths)
            .with_listing_options(listing_options)
            .with_schema(file_schema);
        let listing = ListingTable::try_new(config)?
            .with_cache(ctx.runtime_env().cache_manager.get_file_statistic_cache());
        Ok(Arc::new(JitsonTable::try_new(Arc::new(listing))?))
    }
}

impl LogicalExtensionCodec for JitsonLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        match strip(buf, TABLE_TAG) {
            Some(bytes) => self.decode_table(bytes, schema, ctx),
            None => self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        if let Some(table) = node.downcast_ref::<JitsonTable>() {
            return self.encode_table(table, buf);
        }
        if let Some(listing) = node.downcast_ref::<ListingTable>()
            && listing
                .options()
                .format
                .downcast_ref::<JitsonFormat>()
                .is_some()
        {
            // Not reached through datafusion-proto (which refuses the table
            // first), but say what to do if a caller asks directly.
            return Err(DataFusionError::Plan(format!(
                "table `{table_ref}` is a ListingTable of jitson's format: wrap it in \
                 jitson_ballista::JitsonTable to send it to a Ballista scheduler"
            )));
        }
        self.inner.try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        match strip(buf, FORMAT_TAG) {
            Some(bytes) => {
                let factory = JsonLogicalExtensionCodec {}.try_decode_file_format(bytes, ctx)?;
                let options = factory
                    .downcast_ref::<JsonFormatFactory>()
                    .and_then(|f| f.options.clone())
                    .unwrap_or_default();
                Ok(Arc::new(JitsonFormatFactory::new_with_options(options)))
            }
            None => self.inner.try_decode_file_format(buf, ctx),
        }
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        match node.downcast_ref::<JitsonFormatFactory>() {
            Some(factory) => {
                // DataFusion's JSON factory message carries the same options.
                let json = Arc::new(JsonFormatFactory {
                    options: factory.options.clone(),
                });
                buf.extend_from_slice(FORMAT_TAG);
                JsonLogicalExtensionCodec {}.try_encode_file_format(buf, json)
            }
            None => self.inner.try_encode_file_format(buf, node),
        }
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

/// The physical extension codec of a Ballista session reading JSON through
/// jitson: scans of [`JitsonSource`] itself, every other plan through the
/// codec it wraps (Ballista's own by default).
#[derive(Debug)]
pub struct JitsonPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl Default for JitsonPhysicalCodec {
    fn default() -> Self {
        Self::new(Arc::new(BallistaPhysicalExtensionCodec::default()))
    }
}

impl JitsonPhysicalCodec {
    /// A codec that passes what is not jitson's to `inner`.
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        JitsonPhysicalCodec { inner }
    }

    fn decode_scan(
        &self,
        bytes: &[u8],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let node = ScanNode::decode(bytes).map_err(|e| decode_error("a jitson scan", e))?;
        let base_conf = node.base_conf.as_ref().ok_or_else(|| {
            DataFusionError::Internal("jitson-ballista: a jitson scan without its file scan".into())
        })?;
        let compression: CompressionTypeVariant = node.compression.parse()?;
        let table_schema = parse_table_schema_from_proto(base_conf)?;
        let source = Arc::new(
            JitsonSource::new(table_schema)
                .with_newline_delimited(node.newline_delimited)
                .with_validate_skipped(!node.skip_unvalidated),
        );
        let decode_ctx = PhysicalPlanDecodeContext::new(ctx, self);
        let conf =
            parse_protobuf_file_scan_config(base_conf, &decode_ctx, proto_converter, source)?;
        let conf = FileScanConfigBuilder::from(conf)
            .with_file_compression_type(FileCompressionType::from(compression))
            .build();
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn encode_sink(
        &self,
        exec: &DataSinkExec,
        sink: &JitsonSink,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let config = sink.config();
        // DataFusion's JSON sink has the same two parts; its conversion
        // writes them.
        let json = JsonSink::new(config.clone(), sink.writer_options().clone());
        let sort_order = exec
            .sort_order()
            .as_ref()
            .map(|requirement| {
                let physical_sort_expr_nodes = requirement
                    .iter()
                    .map(|requirement| {
                        let expr: PhysicalSortExpr = requirement.clone().into();
                        Ok(protobuf::PhysicalSortExprNode {
                            expr: Some(Box::new(
                                proto_converter.physical_expr_to_proto(&expr.expr, self)?,
                            )),
                            asc: !expr.options.descending,
                            nulls_first: expr.options.nulls_first,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok::<_, DataFusionError>(protobuf::PhysicalSortExprNodeCollection {
                    physical_sort_expr_nodes,
                })
            })
            .transpose()?;
        let node = SinkNode {
            sink: Some(protobuf::JsonSink::try_from(&json)?),
            sort_order,
            original_url: config.original_url.clone(),
        };
        buf.extend_from_slice(SINK_TAG);
        node.encode(buf)
            .map_err(|e| DataFusionError::Internal(format!("jitson-ballista: {e}")))
    }

    fn decode_sink(
        &self,
        bytes: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let node = SinkNode::decode(bytes).map_err(|e| decode_error("a jitson sink", e))?;
        let [input] = inputs else {
            return Err(DataFusionError::Internal(format!(
                "jitson-ballista: a jitson sink with {} inputs",
                inputs.len()
            )));
        };
        let json = node.sink.as_ref().ok_or_else(|| {
            DataFusionError::Internal("jitson-ballista: a jitson sink without its files".into())
        })?;
        let json = JsonSink::try_from(json)?;
        let mut config = json.config().clone();
        config.original_url = node.original_url;
        let sink = JitsonSink::new(config, json.writer_options().clone());
        let sort_order = match &node.sort_order {
            None => None,
            Some(collection) => {
                let decode_ctx = PhysicalPlanDecodeContext::new(ctx, self);
                let schema = input.schema();
                let exprs = collection
                    .physical_sort_expr_nodes
                    .iter()
                    .map(|node| {
                        let expr = node.expr.as_ref().ok_or_else(|| {
                            DataFusionError::Internal(
                                "jitson-ballista: a sink ordering without its expression".into(),
                            )
                        })?;
                        Ok(PhysicalSortExpr {
                            expr: proto_converter.proto_to_physical_expr(
                                expr,
                                &schema,
                                &decode_ctx,
                            )?,
                            options: SortOptions {
                                descending: !node.asc,
                                nulls_first: node.nulls_first,
                            },
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                LexRequirement::new(exprs.into_iter().map(Into::into))
            }
        };
        Ok(Arc::new(DataSinkExec::new(
            Arc::clone(input),
            Arc::new(sink),
            sort_order,
        )))
    }
}

/// The sink of `plan`, if it is a `DataSinkExec` writing through a
/// [`JitsonSink`].
fn jitson_sink(plan: &dyn ExecutionPlan) -> Option<(&DataSinkExec, &JitsonSink)> {
    let exec = plan.downcast_ref::<DataSinkExec>()?;
    let sink = exec.sink().downcast_ref::<JitsonSink>()?;
    Some((exec, sink))
}

/// The file scan of `plan`, if it is a `DataSourceExec` reading through a
/// [`JitsonSource`].
fn jitson_scan(plan: &dyn ExecutionPlan) -> Option<(&FileScanConfig, &JitsonSource)> {
    let exec = plan.downcast_ref::<DataSourceExec>()?;
    let conf = exec.data_source().downcast_ref::<FileScanConfig>()?;
    let source = conf.file_source().downcast_ref::<JitsonSource>()?;
    Some((conf, source))
}

impl PhysicalExtensionCodec for JitsonPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(bytes) = strip(buf, SCAN_TAG) {
            return self.decode_scan(bytes, ctx, proto_converter);
        }
        if let Some(bytes) = strip(buf, SINK_TAG) {
            return self.decode_sink(bytes, inputs, ctx, proto_converter);
        }
        self.inner.try_decode(buf, inputs, ctx, proto_converter)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        if let Some((exec, sink)) = jitson_sink(node.as_ref()) {
            return self.encode_sink(exec, sink, buf, proto_converter);
        }
        let Some((conf, source)) = jitson_scan(node.as_ref()) else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        let scan = ScanNode {
            base_conf: Some(serialize_file_scan_config(conf, self, proto_converter)?),
            newline_delimited: source.newline_delimited(),
            compression: conf.file_compression_type.get_variant().to_string(),
            skip_unvalidated: !source.validate_skipped(),
        };
        buf.extend_from_slice(SCAN_TAG);
        scan.encode(buf)
            .map_err(|e| DataFusionError::Internal(format!("jitson-ballista: {e}")))
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }
    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}
