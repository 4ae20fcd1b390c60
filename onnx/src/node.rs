//! One node being converted: its inputs as importer values, typed attribute access, and the
//! bookkeeping that makes an attribute no converter reads an import error (so that an
//! attribute whose meaning we ignore can never silently change the result).

use std::cell::RefCell;
use std::collections::HashSet;

use crate::error::Error;
use crate::importer::Val;
use crate::proto::{AttributeProto, NodeProto, TensorProto, attribute_type as at};

/// A node with its resolved inputs.
pub(crate) struct Node<'a> {
    pub proto: &'a NodeProto,
    pub op: &'a str,
    pub opset: i64,
    /// `None` for an omitted optional input (`""`).
    pub inputs: Vec<Option<Val>>,
    read: RefCell<HashSet<String>>,
}

impl<'a> Node<'a> {
    pub fn new(proto: &'a NodeProto, opset: i64, inputs: Vec<Option<Val>>) -> Node<'a> {
        Node {
            proto,
            op: proto.op_type.as_deref().unwrap_or(""),
            opset,
            inputs,
            read: RefCell::new(HashSet::new()),
        }
    }

    /// The node's name, or its first output's if it has none.
    pub fn name(&self) -> &str {
        match self.proto.name.as_deref() {
            Some(n) if !n.is_empty() => n,
            _ => self.proto.output.first().map_or("", String::as_str),
        }
    }

    /// `op `Conv` (node `conv1`, opset 13)`, the prefix of every error about this node.
    pub fn what(&self) -> String {
        format!(
            "op `{}` (node `{}`, opset {})",
            self.op,
            self.name(),
            self.opset
        )
    }

    pub fn unsupported(&self, msg: impl std::fmt::Display) -> Error {
        Error::Unsupported(format!("{}: {msg}", self.what()))
    }

    pub fn invalid(&self, msg: impl std::fmt::Display) -> Error {
        Error::Invalid(format!("{}: {msg}", self.what()))
    }

    /// Required input `i`.
    pub fn input(&self, i: usize) -> Result<&Val, Error> {
        self.inputs
            .get(i)
            .and_then(Option::as_ref)
            .ok_or_else(|| self.invalid(format!("input {i} is missing")))
    }

    /// Optional input `i`.
    pub fn opt_input(&self, i: usize) -> Option<&Val> {
        self.inputs.get(i).and_then(Option::as_ref)
    }

    pub fn num_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// The attribute `name`, marked as read.
    pub fn attr(&self, name: &str) -> Option<&'a AttributeProto> {
        self.read.borrow_mut().insert(name.to_string());
        self.proto
            .attribute
            .iter()
            .find(|a| a.name.as_deref() == Some(name))
    }

    /// Marks attributes whose value does not change inference results (`is_test`,
    /// `consumed_inputs`, `training_mode = 0`) as read.
    pub fn ignore(&self, names: &[&str]) {
        let mut r = self.read.borrow_mut();
        for n in names {
            r.insert((*n).to_string());
        }
    }

    /// An error for the first attribute that no converter read.
    pub fn check_all_read(&self) -> Result<(), Error> {
        let read = self.read.borrow();
        for a in &self.proto.attribute {
            let name = a.name.as_deref().unwrap_or("");
            if !read.contains(name) {
                return Err(self.unsupported(format!("attribute `{name}` is not supported")));
            }
        }
        Ok(())
    }

    fn kind_error(&self, name: &str, want: &str) -> Error {
        self.invalid(format!("attribute `{name}` is not {want}"))
    }

    fn typed(&self, name: &str, ty: i32, want: &str) -> Result<Option<&'a AttributeProto>, Error> {
        match self.attr(name) {
            None => Ok(None),
            Some(a) if a.ref_attr_name.is_some() => {
                Err(self.unsupported(format!("attribute `{name}` refers to a function attribute")))
            }
            // Old exporters leave `type` unset; trust the field that is present then.
            Some(a) if a.r#type.is_none_or(|t| t == ty) => Ok(Some(a)),
            Some(_) => Err(self.kind_error(name, want)),
        }
    }

    pub fn attr_i(&self, name: &str, default: i64) -> Result<i64, Error> {
        Ok(self.opt_i(name)?.unwrap_or(default))
    }

    pub fn opt_i(&self, name: &str) -> Result<Option<i64>, Error> {
        match self.typed(name, at::INT, "an int")? {
            None => Ok(None),
            Some(a) => a.i.map(Some).ok_or_else(|| self.kind_error(name, "an int")),
        }
    }

    pub fn attr_f(&self, name: &str, default: f32) -> Result<f32, Error> {
        Ok(self.opt_f(name)?.unwrap_or(default))
    }

    pub fn opt_f(&self, name: &str) -> Result<Option<f32>, Error> {
        match self.typed(name, at::FLOAT, "a float")? {
            None => Ok(None),
            Some(a) => {
                a.f.map(Some)
                    .ok_or_else(|| self.kind_error(name, "a float"))
            }
        }
    }

    pub fn attr_ints(&self, name: &str) -> Result<Option<Vec<i64>>, Error> {
        Ok(self
            .typed(name, at::INTS, "a list of ints")?
            .map(|a| a.ints.clone()))
    }

    pub fn attr_floats(&self, name: &str) -> Result<Option<Vec<f32>>, Error> {
        Ok(self
            .typed(name, at::FLOATS, "a list of floats")?
            .map(|a| a.floats.clone()))
    }

    pub fn attr_s(&self, name: &str) -> Result<Option<String>, Error> {
        match self.typed(name, at::STRING, "a string")? {
            None => Ok(None),
            Some(a) => {
                let bytes = a.s.clone().unwrap_or_default();
                String::from_utf8(bytes)
                    .map(Some)
                    .map_err(|_| self.kind_error(name, "UTF-8 text"))
            }
        }
    }

    pub fn attr_t(&self, name: &str) -> Result<Option<&'a TensorProto>, Error> {
        match self.typed(name, at::TENSOR, "a tensor")? {
            None => Ok(None),
            Some(a) => {
                a.t.as_ref()
                    .map(Some)
                    .ok_or_else(|| self.kind_error(name, "a tensor"))
            }
        }
    }

    /// Whether the node has attribute `name` (without marking it read).
    pub fn has_attr(&self, name: &str) -> bool {
        self.proto
            .attribute
            .iter()
            .any(|a| a.name.as_deref() == Some(name))
    }

    /// Rejects attribute types the importer never reads (graphs, for control flow).
    pub fn reject_graph_attrs(&self) -> Result<(), Error> {
        for a in &self.proto.attribute {
            if a.r#type == Some(at::GRAPH) || a.g.is_some() || !a.graphs.is_empty() {
                return Err(self.unsupported(format!(
                    "subgraph attribute `{}` (control flow is not supported)",
                    a.name.as_deref().unwrap_or("")
                )));
            }
        }
        Ok(())
    }
}

/// The default value of a string attribute.
pub(crate) fn or_str(v: Option<String>, default: &str) -> String {
    v.unwrap_or_else(|| default.to_string())
}
