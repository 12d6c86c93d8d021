//! Support for generated builders: the steps of a setter that are the same for every field,
//! one generic body here instead of one in every setter (each setter's iterator chain or
//! `Option` handling was a body of adapters and obligations for rustc to check; BENCHMARKS.md,
//! section g).

/// A list field's value from the setter's items, each converted: what
/// `items.into_iter().map(Into::into).collect()` gives.
#[inline]
pub fn list<T, I>(items: I) -> Vec<T>
where
    I: IntoIterator,
    I::Item: Into<T>,
{
    items.into_iter().map(Into::into).collect()
}

/// Appends `item`, converted, to an optional list field, which is first set to an empty list
/// when unset.
#[inline]
pub fn push<T>(list: &mut Option<Vec<T>>, item: impl Into<T>) {
    list.get_or_insert_default().push(item.into());
}

#[cfg(test)]
mod tests {
    use super::{list, push};

    #[test]
    fn lists_are_converted_in_order_and_pushed_onto() {
        let names: Vec<String> = list(["a", "b"]);
        assert_eq!(names, ["a", "b"]);
        let mut field: Option<Vec<String>> = None;
        push(&mut field, "c");
        push(&mut field, String::from("d"));
        assert_eq!(field, Some(vec!["c".to_owned(), "d".to_owned()]));
    }
}
