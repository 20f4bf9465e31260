//! [`JitsonFormat`] (DataFusion's `FileFormat`), its factory, and the sink that
//! writes query results through jitson's Arrow writer.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use bytes::Bytes;
use datafusion::catalog::Session;
use datafusion::common::config::{ConfigField, ConfigFileType, JsonOptions};
use datafusion::common::file_options::json_writer::JsonWriterOptions;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::{GetExt, Result, Statistics, not_impl_err};
use datafusion::datasource::file_format::json::JsonFormat;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion::datasource::physical_plan::{
    FileScanConfig, FileScanConfigBuilder, FileSinkConfig,
};
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::physical_expr_common::sort_expr::LexRequirement;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan};
use datafusion_datasource::display::FileGroupDisplay;
use datafusion_datasource::file::FileSource;
use datafusion_datasource::file_compression_type::FileCompressionType;
use datafusion_datasource::file_sink_config::FileSink;
use datafusion_datasource::write::BatchSerializer;
use datafusion_datasource::write::demux::DemuxedStreamReceiver;
use datafusion_datasource::write::orchestration::spawn_writer_tasks_and_join;
use object_store::{ObjectMeta, ObjectStore};

use crate::source::JitsonSource;

/// The JSON file format read by jitson: DataFusion's `JsonFormat` with the same
/// options (`format.compression`, `format.schema_infer_max_rec`,
/// `format.newline_delimited`), the same schema inference (DataFusion's own, so
/// an inferred table has the same columns in the same order), and scans and
/// writes done by jitson-arrow.
#[derive(Debug, Default)]
pub struct JitsonFormat {
    options: JsonOptions,
    /// `with_validate_skipped(false)`.
    skip_unvalidated: bool,
}

impl JitsonFormat {
    /// This format with DataFusion's JSON options.
    pub fn with_options(mut self, options: JsonOptions) -> Self {
        self.options = options;
        self
    }

    /// The options.
    pub fn options(&self) -> &JsonOptions {
        &self.options
    }

    /// Records read to infer a schema (default: DataFusion's, 1000).
    pub fn with_schema_infer_max_rec(mut self, max_rec: usize) -> Self {
        self.options.schema_infer_max_rec = Some(max_rec);
        self
    }

    /// The files' compression (default: none).
    pub fn with_file_compression_type(mut self, compression: FileCompressionType) -> Self {
        self.options.compression = compression.into();
        self
    }

    /// `true` (default): NDJSON; `false`: each file is one JSON array of
    /// records.
    pub fn with_newline_delimited(mut self, newline_delimited: bool) -> Self {
        self.options.newline_delimited = newline_delimited;
        self
    }

    /// `false`: members of each record that no projected column reads are
    /// skipped without being validated; see
    /// [`JitsonSource::with_validate_skipped`]. Default `true`.
    pub fn with_validate_skipped(mut self, validate: bool) -> Self {
        self.skip_unvalidated = !validate;
        self
    }

    /// DataFusion's format with the same options, which infers schemas.
    fn datafusion_format(&self) -> JsonFormat {
        JsonFormat::default().with_options(self.options.clone())
    }
}

#[async_trait]
impl FileFormat for JitsonFormat {
    fn get_ext(&self) -> String {
        JitsonFormatFactory::new().get_ext()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        Ok(format!("{}{}", self.get_ext(), compression.get_ext()))
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        Some(self.options.compression.into())
    }

    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        self.datafusion_format()
            .infer_schema(state, store, objects)
            .await
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        _object: &ObjectMeta,
    ) -> Result<Statistics> {
        Ok(Statistics::new_unknown(&table_schema))
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let conf = FileScanConfigBuilder::from(conf)
            .with_file_compression_type(self.options.compression.into())
            .build();
        Ok(DataSourceExec::from_data_source(conf))
    }

    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        _state: &dyn Session,
        conf: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if conf.insert_op != InsertOp::Append {
            return not_impl_err!("Overwrites are not implemented yet for Json");
        }
        let writer_options = JsonWriterOptions::try_from(&self.options)?;
        let sink = Arc::new(JitsonSink::new(conf, writer_options));
        Ok(Arc::new(DataSinkExec::new(input, sink, order_requirements)))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(
            JitsonSource::new(table_schema)
                .with_newline_delimited(self.options.newline_delimited)
                .with_validate_skipped(!self.skip_unvalidated),
        )
    }
}

/// Makes [`JitsonFormat`]s from `format.*` options, under the extension
/// "json": registered in a session, it serves `CREATE EXTERNAL TABLE … STORED
/// AS JSON`, `COPY … STORED AS JSON` and URL tables.
#[derive(Debug, Default)]
pub struct JitsonFormatFactory {
    /// Options used instead of the session's table options, if set.
    pub options: Option<JsonOptions>,
}

impl JitsonFormatFactory {
    /// A factory taking its defaults from the session's table options.
    pub fn new() -> Self {
        JitsonFormatFactory { options: None }
    }

    /// A factory with its own default options.
    pub fn new_with_options(options: JsonOptions) -> Self {
        JitsonFormatFactory {
            options: Some(options),
        }
    }
}

impl FileFormatFactory for JitsonFormatFactory {
    fn create(
        &self,
        state: &dyn Session,
        format_options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let options = match &self.options {
            None => {
                let mut table_options = state.default_table_options();
                table_options.set_config_format(ConfigFileType::JSON);
                table_options.alter_with_string_hash_map(format_options)?;
                table_options.json
            }
            Some(options) => {
                let mut options = options.clone();
                for (key, value) in format_options {
                    options.set(key, value)?;
                }
                options
            }
        };
        Ok(Arc::new(JitsonFormat::default().with_options(options)))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(JitsonFormat::default())
    }
}

impl GetExt for JitsonFormatFactory {
    fn get_ext(&self) -> String {
        "json".to_string()
    }
}

/// Writes each batch as NDJSON with jitson's Arrow writer (arrow-json's bytes).
#[derive(Debug, Default)]
pub struct JitsonSerializer;

impl BatchSerializer for JitsonSerializer {
    fn serialize(&self, batch: RecordBatch, _initial: bool) -> Result<Bytes> {
        let mut buffer = Vec::with_capacity(4096);
        let mut writer = jitson_arrow::writer::LineDelimitedWriter::new(&mut buffer);
        writer.write(&batch)?;
        writer.finish()?;
        drop(writer);
        Ok(Bytes::from(buffer))
    }
}

/// The sink of `COPY … STORED AS JSON`, `INSERT INTO` a JSON table and
/// `write_json`, writing through [`JitsonSerializer`].
pub struct JitsonSink {
    config: FileSinkConfig,
    writer_options: JsonWriterOptions,
}

impl JitsonSink {
    /// A sink writing the files `config` names, compressed as `writer_options`
    /// say.
    pub fn new(config: FileSinkConfig, writer_options: JsonWriterOptions) -> Self {
        JitsonSink {
            config,
            writer_options,
        }
    }

    /// The writer options (compression and its level).
    pub fn writer_options(&self) -> &JsonWriterOptions {
        &self.writer_options
    }
}

impl fmt::Debug for JitsonSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JitsonSink").finish()
    }
}

impl DisplayAs for JitsonSink {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, "JitsonSink(file_groups=")?;
                FileGroupDisplay(&self.config.file_group).fmt_as(t, f)?;
                write!(f, ")")
            }
            DisplayFormatType::TreeRender => {
                writeln!(f, "format: json (jitson)")?;
                write!(f, "file={}", self.config.original_url)
            }
        }
    }
}

#[async_trait]
impl FileSink for JitsonSink {
    fn config(&self) -> &FileSinkConfig {
        &self.config
    }

    async fn spawn_writer_tasks_and_join(
        &self,
        context: &Arc<TaskContext>,
        demux_task: SpawnedTask<Result<()>>,
        file_stream_rx: DemuxedStreamReceiver,
        object_store: Arc<dyn ObjectStore>,
    ) -> Result<u64> {
        spawn_writer_tasks_and_join(
            context,
            Arc::new(JitsonSerializer),
            self.writer_options.compression.into(),
            self.writer_options.compression_level,
            object_store,
            demux_task,
            file_stream_rx,
        )
        .await
    }
}

#[async_trait]
impl DataSink for JitsonSink {
    fn schema(&self) -> &SchemaRef {
        self.config.output_schema()
    }

    async fn write_all(
        &self,
        data: SendableRecordBatchStream,
        context: &Arc<TaskContext>,
    ) -> Result<u64> {
        FileSink::write_all(self, data, context).await
    }
}
