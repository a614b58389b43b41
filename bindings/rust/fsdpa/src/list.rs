//! [`List`]: the one list protocol of the C API (`fsdpa_list`), owned.
//!
//! Every C function that returns several items hands over an `fsdpa_list *`:
//! a snapshot the caller owns, read with `fsdpa_list_count()` and
//! `fsdpa_list_get()` (O(1) per item) and released with `fsdpa_list_free()`.
//! [`List<T>`] holds one and frees it on drop; its items are read into `T`
//! (the crate's result type, with owned strings) one at a time, so the rows
//! themselves are never copied twice.  A list does not change when more
//! events are fed and stays valid after its analyzer is dropped, which is
//! why `List` borrows nothing.
use crate::error::{Error, Result, Status};
use crate::sys;
use std::fmt;
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::ptr::NonNull;

/// A Rust result type that is read from the items of one kind of list.
///
/// Implemented by this crate for every item type it returns; the methods
/// are the crate's plumbing, not for callers.
pub trait ListItem: Sized {
    /// The C struct `fsdpa_list_get()` fills.
    #[doc(hidden)]
    type Raw;
    /// The kind of list that holds such items.
    #[doc(hidden)]
    const KIND: sys::fsdpa_list_kind;
    /// A blank item: zeroed, `size` set.
    #[doc(hidden)]
    fn blank() -> Self::Raw;
    /// The value of a filled item.
    ///
    /// # Safety
    /// The pointers in `raw` (strings, ranges) are NULL or point into the
    /// live list it was read from.
    #[doc(hidden)]
    unsafe fn from_raw(raw: &Self::Raw) -> Self;
}

/// An owned `fsdpa_list` of items read as `T`, released on drop.
pub struct List<T: ListItem> {
    raw: Option<NonNull<sys::fsdpa_list>>,
    len: usize,
    _t: PhantomData<fn() -> T>,
}

// SAFETY: a list is an immutable snapshot independent of its context; the
// header allows reading one list from several threads at once, and freeing
// it from any thread.
unsafe impl<T: ListItem> Send for List<T> {}
unsafe impl<T: ListItem> Sync for List<T> {}

impl<T: ListItem> Drop for List<T> {
    fn drop(&mut self) {
        if let Some(p) = self.raw.take() {
            // SAFETY: the list is ours and freed once.
            unsafe { sys::fsdpa_list_free(p.as_ptr()) }
        }
    }
}

impl<T: ListItem> List<T> {
    /// Take ownership of a list the library returned (NULL: an empty list).
    /// A list of another kind than `T` reads is refused (and freed).
    ///
    /// # Safety
    /// `p` is NULL or a list from the library that nobody else frees.
    pub unsafe fn from_raw(p: *mut sys::fsdpa_list) -> Result<List<T>> {
        let Some(raw) = NonNull::new(p) else {
            return Ok(List {
                raw: None,
                len: 0,
                _t: PhantomData,
            });
        };
        let kind = sys::fsdpa_list_type(raw.as_ptr());
        if kind != T::KIND {
            sys::fsdpa_list_free(raw.as_ptr());
            return Err(Error::new(
                Status::InvalidArgument,
                format!("a list of kind {} where {} was expected", kind.0, T::KIND.0),
            ));
        }
        Ok(List {
            raw: Some(raw),
            len: sys::fsdpa_list_count(raw.as_ptr()),
            _t: PhantomData,
        })
    }

    /// Call `f(&mut list)` (a C function that returns a list) and own what
    /// it returned; `check` turns its status into the error.
    pub(crate) fn call(
        f: impl FnOnce(*mut *mut sys::fsdpa_list) -> sys::fsdpa_status,
        check: impl FnOnce(sys::fsdpa_status) -> Result<()>,
    ) -> Result<List<T>> {
        let mut p: *mut sys::fsdpa_list = std::ptr::null_mut();
        let st = f(&mut p);
        if st != sys::FSDPA_OK {
            // the library leaves no list on failure (it sets *out = NULL);
            // one left anyway would not be ours to trust, so it is freed
            if !p.is_null() {
                unsafe { sys::fsdpa_list_free(p) };
            }
            check(st)?;
        }
        // SAFETY: p is NULL or the list the call handed over.
        unsafe { List::from_raw(p) }
    }

    /// The C handle, valid while the list lives (for `fsdpa_*` calls on it).
    pub fn as_ptr(&self) -> *const sys::fsdpa_list {
        self.raw
            .map_or(std::ptr::null(), |p| p.as_ptr() as *const _)
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list has no items.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Item `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<T> {
        let raw = self.raw?;
        if i >= self.len {
            return None;
        }
        let mut item = T::blank();
        // SAFETY: `item` is a struct of the list's kind with its size set;
        // the library writes at most that many bytes.
        let st = unsafe {
            sys::fsdpa_list_get(raw.as_ptr(), i, &mut item as *mut T::Raw as *mut c_void)
        };
        // SAFETY: the item's pointers point into this list, alive here.
        (st == sys::FSDPA_OK).then(|| unsafe { T::from_raw(&item) })
    }

    /// The items in order.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            list: self,
            i: 0,
            end: self.len,
        }
    }

    /// All items in a `Vec`.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }
}

impl<T: ListItem> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("List")
            .field("kind", &T::KIND.0)
            .field("len", &self.len)
            .finish()
    }
}

/// Iterator over the items of a borrowed [`List`].
pub struct Iter<'a, T: ListItem> {
    list: &'a List<T>,
    i: usize,
    end: usize,
}

impl<T: ListItem> Iterator for Iter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        while self.i < self.end {
            self.i += 1;
            // an item the library refuses (it cannot, for an index in
            // range and a full-size struct) is skipped, not a panic
            if let Some(v) = self.list.get(self.i - 1) {
                return Some(v);
            }
        }
        None
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.end - self.i, Some(self.end - self.i))
    }
}
impl<T: ListItem> ExactSizeIterator for Iter<'_, T> {}
impl<T: ListItem> DoubleEndedIterator for Iter<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        while self.end > self.i {
            self.end -= 1;
            if let Some(v) = self.list.get(self.end) {
                return Some(v);
            }
        }
        None
    }
}

/// Iterator that owns its [`List`] (frees it when dropped).
pub struct IntoIter<T: ListItem> {
    list: List<T>,
    i: usize,
    end: usize,
}

impl<T: ListItem> IntoIter<T> {
    /// An iterator over no items.
    pub(crate) fn empty() -> IntoIter<T> {
        IntoIter {
            list: List {
                raw: None,
                len: 0,
                _t: PhantomData,
            },
            i: 0,
            end: 0,
        }
    }
}

impl<T: ListItem> Iterator for IntoIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        while self.i < self.end {
            self.i += 1;
            if let Some(v) = self.list.get(self.i - 1) {
                return Some(v);
            }
        }
        None
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.end - self.i, Some(self.end - self.i))
    }
}
impl<T: ListItem> ExactSizeIterator for IntoIter<T> {}
impl<T: ListItem> DoubleEndedIterator for IntoIter<T> {
    fn next_back(&mut self) -> Option<T> {
        while self.end > self.i {
            self.end -= 1;
            if let Some(v) = self.list.get(self.end) {
                return Some(v);
            }
        }
        None
    }
}

impl<T: ListItem> IntoIterator for List<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    fn into_iter(self) -> IntoIter<T> {
        let end = self.len;
        IntoIter {
            list: self,
            i: 0,
            end,
        }
    }
}

impl<'a, T: ListItem> IntoIterator for &'a List<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

/// Implements [`ListItem`] for a result type read from a C struct without
/// pointers (`From<&Raw>`).
macro_rules! list_item {
    ($t:ty, $raw:ty, $kind:expr) => {
        impl $crate::list::ListItem for $t {
            type Raw = $raw;
            const KIND: $crate::sys::fsdpa_list_kind = $kind;
            fn blank() -> $raw {
                <$raw>::sized()
            }
            unsafe fn from_raw(raw: &$raw) -> $t {
                <$t>::from(raw)
            }
        }
    };
}
pub(crate) use list_item;
