//! A file's bytes as a stream of large chunks, cut to the lines of one byte
//! range.
//!
//! DataFusion splits an NDJSON file into byte ranges (`FileRange`) when
//! `repartition_file_scans` is on, and every range must read whole lines, each
//! line read by exactly one range. The rule is DataFusion's (its
//! `AlignedBoundaryStream`, `datafusion-datasource/src/boundary_stream.rs`): a
//! range `[start, end)` reads the lines whose first byte is at or after `start`,
//! up to and including the line that holds byte `end - 1`. The bytes are the same;
//! what differs is the size of the pieces: object_store reads a local file in
//! 8 KiB chunks, one blocking task each, and this reader asks for
//! [`BLOCK_BYTES`] at a time, so the decoder sees few cuts inside records.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use datafusion::common::{DataFusionError, Result};
use futures::stream::{BoxStream, StreamExt};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, GetResultPayload, ObjectStore};

/// Bytes read from a local file per blocking read, and the least a chunk from a
/// remote stream is grown to before it is handed on.
pub(crate) const BLOCK_BYTES: usize = 2 << 20;

/// The bytes of `location` from `fetch_start` to the end of the file, in
/// chunks of about [`BLOCK_BYTES`].
pub(crate) async fn file_stream(
    store: Arc<dyn ObjectStore>,
    location: Path,
    fetch_start: u64,
) -> Result<BoxStream<'static, Result<Bytes>>> {
    let options = GetOptions {
        range: (fetch_start > 0).then_some(GetRange::Offset(fetch_start)),
        ..GetOptions::default()
    };
    let result = store.get_opts(&location, options).await?;
    match result.payload {
        #[cfg(not(target_arch = "wasm32"))]
        GetResultPayload::File(file, path) => Ok(local_blocks(file, path, fetch_start)),
        GetResultPayload::Stream(stream) => Ok(coalesce(
            stream
                .map(|chunk| chunk.map_err(DataFusionError::from))
                .boxed(),
            BLOCK_BYTES,
        )),
    }
}

/// A local file read from `start` in blocks of [`BLOCK_BYTES`], each read in a
/// blocking task.
fn local_blocks(
    file: std::fs::File,
    path: std::path::PathBuf,
    start: u64,
) -> BoxStream<'static, Result<Bytes>> {
    let state = Some((file, path, start, true));
    futures::stream::try_unfold(state, |state| async move {
        let Some((mut file, path, at, first)) = state else {
            return Ok(None);
        };
        let read = tokio::task::spawn_blocking(move || -> std::io::Result<_> {
            if first {
                file.seek(SeekFrom::Start(at))?;
            }
            let mut block = Vec::with_capacity(BLOCK_BYTES);
            (&mut file)
                .take(BLOCK_BYTES as u64)
                .read_to_end(&mut block)?;
            Ok((file, block))
        })
        .await
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let (file, block) = read
            .map_err(|e| DataFusionError::Execution(format!("reading {}: {e}", path.display())))?;
        if block.is_empty() {
            return Ok(None);
        }
        let next = at + block.len() as u64;
        Ok(Some((Bytes::from(block), Some((file, path, next, false)))))
    })
    .boxed()
}

/// Chunks of `inner` joined until each holds at least `least` bytes (the last
/// may hold fewer). A chunk already that large passes through uncopied.
pub(crate) fn coalesce(
    inner: BoxStream<'static, Result<Bytes>>,
    least: usize,
) -> BoxStream<'static, Result<Bytes>> {
    futures::stream::try_unfold(Some(inner), move |inner| async move {
        let Some(mut inner) = inner else {
            return Ok(None);
        };
        let mut joined: Vec<u8> = Vec::new();
        while let Some(chunk) = inner.next().await {
            let chunk = chunk?;
            if joined.is_empty() && chunk.len() >= least {
                return Ok(Some((chunk, Some(inner))));
            }
            joined.extend_from_slice(&chunk);
            if joined.len() >= least {
                return Ok(Some((Bytes::from(joined), Some(inner))));
            }
        }
        if joined.is_empty() {
            Ok(None)
        } else {
            Ok(Some((Bytes::from(joined), None)))
        }
    })
    .boxed()
}

/// The lines of `[start, end)` of a file of `file_size` bytes (see the module
/// documentation). `first_line` is set to the file offset of the range's first
/// line once it is found (errors are reported in file positions from it).
pub(crate) async fn aligned_range(
    store: Arc<dyn ObjectStore>,
    location: Path,
    start: u64,
    end: u64,
    file_size: u64,
    first_line: Arc<AtomicU64>,
) -> Result<BoxStream<'static, Result<Bytes>>> {
    first_line.store(start, Ordering::Relaxed);
    if start >= end || start >= file_size {
        return Ok(futures::stream::empty().boxed());
    }
    // From the byte before `start`: the first newline at or after it ends the
    // line that the previous range reads.
    let fetch_start = start.saturating_sub(1);
    let inner = file_stream(store, location, fetch_start).await?;
    let cut = Cut {
        at: fetch_start,
        skipping: start > 0,
        end: if end >= file_size { u64::MAX } else { end },
        done: false,
        first_line,
    };
    Ok(
        futures::stream::unfold((inner, cut), |(mut inner, mut cut)| async move {
            while !cut.done {
                match inner.next().await? {
                    Err(e) => {
                        cut.done = true;
                        return Some((Err(e), (inner, cut)));
                    }
                    Ok(chunk) => {
                        if let Some(piece) = cut.take(chunk) {
                            return Some((Ok(piece), (inner, cut)));
                        }
                    }
                }
            }
            None
        })
        .boxed(),
    )
}

/// The cutting state of [`aligned_range`].
struct Cut {
    /// The file offset of the next chunk's first byte.
    at: u64,
    /// Still looking for the newline that ends the previous range's last line.
    skipping: bool,
    /// The range's last line is the one holding byte `end - 1` (`u64::MAX`: the
    /// range reads to the end of the file).
    end: u64,
    done: bool,
    first_line: Arc<AtomicU64>,
}

impl Cut {
    /// The part of `chunk` that belongs to the range, if any.
    fn take(&mut self, chunk: Bytes) -> Option<Bytes> {
        let chunk_at = self.at;
        self.at += chunk.len() as u64;
        let mut from = 0;
        if self.skipping {
            from = newline_at_or_after(&chunk, 0)? + 1;
            self.skipping = false;
            let line = chunk_at + from as u64;
            self.first_line.store(line, Ordering::Relaxed);
            if line >= self.end {
                // The line holding `end - 1` started before this range.
                self.done = true;
                return None;
            }
        }
        let mut to = chunk.len();
        if self.end != u64::MAX {
            let search = (self.end - 1).max(chunk_at + from as u64) - chunk_at;
            if let Some(newline) = usize::try_from(search)
                .ok()
                .and_then(|s| newline_at_or_after(&chunk, s))
            {
                to = newline + 1;
                self.done = true;
            }
        }
        (from < to).then(|| chunk.slice(from..to))
    }
}

fn newline_at_or_after(bytes: &[u8], from: usize) -> Option<usize> {
    memchr::memchr(b'\n', bytes.get(from..)?).map(|i| i + from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion_datasource::boundary_stream::AlignedBoundaryStream;
    use futures::TryStreamExt;
    use object_store::chunked::ChunkedStore;
    use object_store::memory::InMemory;
    use object_store::{ObjectStoreExt, PutPayload};

    async fn store(data: &[u8], chunk: usize) -> (Arc<dyn ObjectStore>, Path) {
        let inner = Arc::new(InMemory::new());
        let path = Path::from("f.json");
        inner
            .put(&path, PutPayload::from(data.to_vec()))
            .await
            .unwrap();
        (Arc::new(ChunkedStore::new(inner, chunk)), path)
    }

    async fn ours(
        data: &[u8],
        store: &Arc<dyn ObjectStore>,
        path: &Path,
        start: u64,
        end: u64,
        size: u64,
    ) -> Vec<u8> {
        let first = Arc::new(AtomicU64::new(0));
        let stream = aligned_range(
            Arc::clone(store),
            path.clone(),
            start,
            end,
            size,
            Arc::clone(&first),
        )
        .await
        .unwrap();
        let parts: Vec<Bytes> = stream.try_collect().await.unwrap();
        let bytes = parts.concat();
        if !bytes.is_empty() {
            // The first line's offset is where the bytes start in the file.
            let first = first.load(Ordering::Relaxed) as usize;
            assert_eq!(&data[first..first + bytes.len()], &bytes[..]);
        }
        bytes
    }

    async fn theirs(
        store: &Arc<dyn ObjectStore>,
        path: &Path,
        start: u64,
        end: u64,
        size: u64,
    ) -> Vec<u8> {
        let stream =
            AlignedBoundaryStream::new(Arc::clone(store), path.clone(), start, end, size, b'\n')
                .await
                .unwrap();
        let parts: Vec<Bytes> = stream.try_collect().await.unwrap();
        parts.concat()
    }

    /// Every range of small files (lines of several lengths, empty lines, no
    /// final newline) reads the bytes DataFusion's aligned stream reads, through
    /// stores returning chunks of 1 to 16 bytes; and the ranges of any split
    /// cover the file exactly once.
    #[tokio::test]
    async fn ranges_read_datafusions_lines() {
        let files: [&[u8]; 4] = [
            b"{\"a\":1}\n{\"a\":22}\n\n{\"a\":333}\n{}\n",
            b"{\"a\":1}\n{\"a\":22}\n{\"a\":333}",
            b"\n\n{\"long\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n{}\n",
            b"{}",
        ];
        for data in files {
            let size = data.len() as u64;
            for chunk in [1, 2, 3, 5, 16, 1 << 20] {
                let (store, path) = store(data, chunk).await;
                for start in 0..=size {
                    for end in start..=size + 1 {
                        let got = ours(data, &store, &path, start, end, size).await;
                        let expected = theirs(&store, &path, start, end, size).await;
                        assert_eq!(
                            String::from_utf8_lossy(&got),
                            String::from_utf8_lossy(&expected),
                            "range {start}..{end} of {:?}, chunks of {chunk}",
                            String::from_utf8_lossy(data)
                        );
                    }
                }
                for parts in 1..=5u64 {
                    let mut all = Vec::new();
                    for i in 0..parts {
                        let (s, e) = (size * i / parts, size * (i + 1) / parts);
                        all.extend(ours(data, &store, &path, s, e, size).await);
                    }
                    assert_eq!(all, data, "{parts} parts, chunks of {chunk}");
                }
            }
        }
    }
}
