//! A record batch's columns read as tag text, whatever Arrow type the file gave them: text
//! (UTF-8 or binary), whole numbers of any width, floats holding whole numbers, days and
//! times of day in any unit; and the other tags' column (a map, or a list of key/value
//! structs).

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, StructArray};
use arrow_schema::{DataType, Fields, TimeUnit};

use crate::values::{push_day, push_rating, push_time, push_whole};

/// The kinds of Arrow types a column can have, as far as reading tags goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Text,
    Whole,
    Float,
    Day,
    Time,
    /// A column of nothing but nulls (what pyarrow makes of an all-`None` column).
    Null,
    /// A map of text to text, or a list of structs with a key and a value of text.
    Pairs,
    Other,
}

/// The family of an Arrow type.
pub fn family(t: &DataType) -> Family {
    use DataType::*;
    match t {
        Utf8 | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView => Family::Text,
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => Family::Whole,
        Float32 | Float64 => Family::Float,
        Date32 | Date64 => Family::Day,
        Time32(TimeUnit::Second | TimeUnit::Millisecond)
        | Time64(TimeUnit::Microsecond | TimeUnit::Nanosecond) => Family::Time,
        Null => Family::Null,
        Map(entries, _) => match entries.data_type() {
            Struct(f) if pair_fields(f).is_some() => Family::Pairs,
            _ => Family::Other,
        },
        List(item) => match item.data_type() {
            Struct(f) if pair_fields(f).is_some() => Family::Pairs,
            _ => Family::Other,
        },
        _ => Family::Other,
    }
}

/// The key and value fields of a pair struct: `key`/`name` and `value`, or the first two
/// fields of a map's entries; both text.
fn pair_fields(fields: &Fields) -> Option<(usize, usize)> {
    let find = |names: &[&str]| {
        fields
            .iter()
            .position(|f| names.iter().any(|n| f.name().eq_ignore_ascii_case(n)))
    };
    let (k, v) = match (find(&["key", "name"]), find(&["value"])) {
        (Some(k), Some(v)) => (k, v),
        _ if fields.len() == 2 => (0, 1),
        _ => return None,
    };
    let text = |i: usize| family(fields[i].data_type()) == Family::Text;
    (text(k) && text(v)).then_some((k, v))
}

/// One scalar column of a batch, read as text.
#[derive(Clone, Copy)]
pub struct Cells<'a> {
    array: &'a dyn Array,
    /// Whole numbers above zero get a `+` (rating changes).
    signed: bool,
}

impl<'a> Cells<'a> {
    pub fn new(array: &'a dyn Array, signed: bool) -> Cells<'a> {
        Cells { array, signed }
    }

    /// Appends the value of `row` as tag text; false (nothing appended) for a null.
    pub fn push(&self, row: usize, out: &mut String) -> bool {
        let a = self.array;
        if a.data_type() == &DataType::Null || a.is_null(row) {
            return false;
        }
        // Through i128, which holds every value of every width (a `UInt64` past `i64::MAX`
        // written as `as i64` made 2^64 − 1 into -1).
        macro_rules! whole {
            ($t:ty) => {
                push_whole(a.as_primitive::<$t>().value(row) as i128, self.signed, out)
            };
        }
        match a.data_type() {
            DataType::Utf8 => out.push_str(a.as_string::<i32>().value(row)),
            DataType::LargeUtf8 => out.push_str(a.as_string::<i64>().value(row)),
            DataType::Utf8View => out.push_str(a.as_string_view().value(row)),
            DataType::Binary => {
                out.push_str(&String::from_utf8_lossy(a.as_binary::<i32>().value(row)))
            }
            DataType::LargeBinary => {
                out.push_str(&String::from_utf8_lossy(a.as_binary::<i64>().value(row)))
            }
            DataType::BinaryView => {
                out.push_str(&String::from_utf8_lossy(a.as_binary_view().value(row)))
            }
            DataType::Int8 => whole!(Int8Type),
            DataType::Int16 => whole!(Int16Type),
            DataType::Int32 => whole!(Int32Type),
            DataType::Int64 => whole!(Int64Type),
            DataType::UInt8 => whole!(UInt8Type),
            DataType::UInt16 => whole!(UInt16Type),
            DataType::UInt32 => whole!(UInt32Type),
            DataType::UInt64 => whole!(UInt64Type),
            DataType::Float32 => self.float(a.as_primitive::<Float32Type>().value(row) as f64, out),
            DataType::Float64 => self.float(a.as_primitive::<Float64Type>().value(row), out),
            DataType::Date32 => push_day(a.as_primitive::<Date32Type>().value(row) as i64, out),
            DataType::Date64 => push_day(
                a.as_primitive::<Date64Type>()
                    .value(row)
                    .div_euclid(86_400_000),
                out,
            ),
            DataType::Time32(TimeUnit::Second) => {
                push_time(a.as_primitive::<Time32SecondType>().value(row) as i64, out)
            }
            DataType::Time32(_) => push_time(
                a.as_primitive::<Time32MillisecondType>().value(row) as i64 / 1000,
                out,
            ),
            DataType::Time64(TimeUnit::Microsecond) => push_time(
                a.as_primitive::<Time64MicrosecondType>().value(row) / 1_000_000,
                out,
            ),
            DataType::Time64(_) => push_time(
                a.as_primitive::<Time64NanosecondType>().value(row) / 1_000_000_000,
                out,
            ),
            _ => return false,
        }
        true
    }

    /// A float: a whole number as one (ratings stored as doubles), else as Rust prints it;
    /// not a number is nothing.
    fn float(&self, v: f64, out: &mut String) {
        if v.fract() == 0.0 && v.abs() < 1e15 {
            push_rating(v as i64, self.signed, out);
        } else if v.is_finite() {
            out.push_str(&v.to_string());
        }
    }
}

/// The other tags' column of a batch: each row's (name, value) pairs in order.
pub struct Pairs<'a> {
    offsets: &'a [i32],
    keys: Cells<'a>,
    values: Cells<'a>,
    nulls: &'a dyn Array,
}

impl<'a> Pairs<'a> {
    /// The pairs of a column of the [`Family::Pairs`] family (`None` for any other).
    pub fn new(array: &'a dyn Array) -> Option<Pairs<'a>> {
        let (offsets, entries): (&[i32], &StructArray) = match array.data_type() {
            DataType::Map(..) => {
                let m = array.as_map();
                (m.value_offsets(), m.entries())
            }
            DataType::List(_) => {
                let l = array.as_list::<i32>();
                (l.value_offsets(), l.values().as_struct_opt()?)
            }
            _ => return None,
        };
        let (k, v) = pair_fields(entries.fields())?;
        Some(Pairs {
            offsets,
            keys: Cells::new(entries.column(k).as_ref(), false),
            values: Cells::new(entries.column(v).as_ref(), false),
            nulls: array,
        })
    }

    /// The pairs of `row`, appended to `out` as (name, value or `None` for a null value).
    pub fn read(&self, row: usize, out: &mut Vec<(String, Option<String>)>) {
        if self.nulls.is_null(row) {
            return;
        }
        let (from, to) = (self.offsets[row] as usize, self.offsets[row + 1] as usize);
        for i in from..to {
            let mut key = String::new();
            if !self.keys.push(i, &mut key) {
                continue;
            }
            let mut value = String::new();
            let value = self.values.push(i, &mut value).then_some(value);
            out.push((key, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::{Int8Array, Int64Array, UInt64Array};

    use super::*;

    fn text(a: &dyn Array, signed: bool) -> String {
        let mut s = String::new();
        assert!(Cells::new(a, signed).push(0, &mut s));
        s
    }

    /// Every whole number comes back as itself: 2^64 − 1 in a `UInt64` column was written
    /// `as i64`, -1.
    #[test]
    fn whole_numbers_of_any_width_are_read_as_they_are() {
        let big = UInt64Array::from(vec![u64::MAX]);
        assert_eq!(text(&big, false), "18446744073709551615");
        assert_eq!(text(&big, true), "+18446744073709551615");
        assert_eq!(
            text(&Int64Array::from(vec![i64::MIN]), true),
            "-9223372036854775808"
        );
        assert_eq!(text(&Int64Array::from(vec![-1]), false), "-1");
        assert_eq!(text(&Int8Array::from(vec![5]), true), "+5");
    }
}
