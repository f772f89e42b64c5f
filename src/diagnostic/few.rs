//! A list that is most often one item long (a finding's related locations, a fix's edits):
//! that item inline, more than one in an exact box.

/// No item, one inline, or several boxed.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) enum Few<T> {
    #[default]
    None,
    One(T),
    Many(Box<[T]>),
}

impl<T> Few<T> {
    pub(super) fn from_vec(mut list: Vec<T>) -> Few<T> {
        if list.len() == 1 {
            if let Some(one) = list.pop() {
                return Few::One(one);
            }
        }
        if list.is_empty() {
            Few::None
        } else {
            Few::Many(list.into_boxed_slice())
        }
    }

    fn into_vec(self) -> Vec<T> {
        match self {
            Few::None => Vec::new(),
            Few::One(one) => vec![one],
            Few::Many(many) => many.into_vec(),
        }
    }

    pub(super) fn as_slice(&self) -> &[T] {
        match self {
            Few::None => &[],
            Few::One(one) => std::slice::from_ref(one),
            Few::Many(many) => many,
        }
    }

    pub(super) fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            Few::None => &mut [],
            Few::One(one) => std::slice::from_mut(one),
            Few::Many(many) => many,
        }
    }

    /// `item` at `index` (the end at most), the others after it as they were.
    pub(super) fn insert(&mut self, index: usize, item: T) {
        let mut all = std::mem::take(self).into_vec();
        all.insert(index.min(all.len()), item);
        *self = Few::from_vec(all);
    }

    pub(super) fn len(&self) -> usize {
        self.as_slice().len()
    }
}
