//! `Vec<T>` and `[T; N]`. Twin: `jit/src/kind/seq.rs`.

use jitson_core::error::{Error, ErrorCode, PathSegment};
use jitson_core::layout::{ArrayLayout, TypeLayout, VecLayout};

use crate::{Parser, at_segment, drop_value};

/// What follows an element inside `[...]`.
enum AfterElement {
    More,
    End,
}

impl Parser<'_> {
    /// After an element: `,` (not followed by `]`) or `]`, both consumed.
    fn end_seq_element(&mut self) -> Result<AfterElement, Error> {
        match self.parse_whitespace() {
            Some(b',') => {
                self.pos += 1;
                if self.parse_whitespace() == Some(b']') {
                    return Err(self.error(ErrorCode::TrailingComma, self.pos));
                }
                Ok(AfterElement::More)
            }
            Some(b']') => {
                self.pos += 1;
                Ok(AfterElement::End)
            }
            Some(_) => Err(self.error(ErrorCode::ExpectedListCommaOrEnd, self.pos)),
            None => Err(self.error(ErrorCode::EofWhileParsingList, self.input.len())),
        }
    }

    /// Consumes `[` and any whitespace; returns whether the array is empty (its `]`
    /// consumed too). Enters one level of depth, which the caller leaves.
    fn begin_seq(&mut self, layout: &'static TypeLayout) -> Result<bool, Error> {
        if self.peek_value()? != b'[' {
            return Err(self.invalid_type(layout.expecting));
        }
        self.enter(layout)?;
        self.pos += 1;
        match self.parse_whitespace() {
            Some(b']') => {
                self.pos += 1;
                Ok(true)
            }
            None => {
                self.leave();
                Err(self.error(ErrorCode::EofWhileParsingList, self.input.len()))
            }
            Some(_) => Ok(false),
        }
    }

    /// A JSON array of any length. Elements are decoded in place into the vector's
    /// spare capacity; the length is published before each growth and at the end.
    ///
    /// # Safety
    /// `dst` is valid for a write of the vector type.
    pub(crate) unsafe fn decode_vec(
        &mut self,
        layout: &'static TypeLayout,
        vec: &VecLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let empty = self.begin_seq(layout)?;
        // SAFETY: `dst` is room for the vector (caller); every call below gets the
        // live vector, and elements are written only below its capacity.
        unsafe {
            (vec.new)(dst);
            if empty {
                self.leave();
                return Ok(());
            }
            let elem = (vec.elem)();
            let mut len = 0usize;
            let mut cap = (vec.capacity)(dst);
            let mut base = (vec.as_mut_ptr)(dst);
            let result = loop {
                if len == cap {
                    (vec.set_len)(dst, len);
                    if !(vec.reserve)(dst, 1) {
                        std::alloc::handle_alloc_error(
                            std::alloc::Layout::from_size_align_unchecked(
                                elem.size.max(1),
                                elem.align,
                            ),
                        );
                    }
                    cap = (vec.capacity)(dst);
                    base = (vec.as_mut_ptr)(dst);
                }
                if let Err(e) = self.decode_value(elem, base.add(len * elem.size)) {
                    break Err(at_segment(e, || PathSegment::Index(len)));
                }
                len += 1;
                match self.end_seq_element() {
                    Ok(AfterElement::More) => {}
                    Ok(AfterElement::End) => break Ok(()),
                    Err(e) => break Err(e),
                }
            };
            (vec.set_len)(dst, len);
            self.leave();
            if result.is_err() {
                drop_value(layout, dst);
            }
            result
        }
    }

    /// A JSON array of exactly `N` elements into `[T; N]`.
    ///
    /// # Safety
    /// `dst` is valid for a write of the array type.
    pub(crate) unsafe fn decode_array(
        &mut self,
        layout: &'static TypeLayout,
        array: &ArrayLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let empty = self.begin_seq(layout)?;
        let elem = (array.elem)();
        let mut count = 0usize;
        let result = if empty {
            Ok(())
        } else {
            loop {
                if count == array.len {
                    break Err(self.error(
                        ErrorCode::ArrayTooLong {
                            expected: array.len,
                        },
                        self.pos,
                    ));
                }
                // SAFETY: element `count` < N lies inside the array (caller's `dst`).
                if let Err(e) = unsafe { self.decode_value(elem, dst.add(count * elem.size)) } {
                    break Err(at_segment(e, || PathSegment::Index(count)));
                }
                count += 1;
                match self.end_seq_element() {
                    Ok(AfterElement::More) => {}
                    Ok(AfterElement::End) => break Ok(()),
                    Err(e) => break Err(e),
                }
            }
        };
        self.leave();
        let result = match result {
            Ok(()) if count != array.len => Err(self.error(
                ErrorCode::InvalidLength {
                    expected: array.len,
                    found: count,
                },
                self.pos - 1,
            )),
            other => other,
        };
        if result.is_err() {
            for i in 0..count {
                // SAFETY: elements 0..count were written and are dropped once.
                unsafe { drop_value(elem, dst.add(i * elem.size)) };
            }
        }
        result
    }
}
