//! Keyword arguments: `call(name=…)` as the parameter of the function called — a method, a
//! class's `__init__` (or the fields of a dataclass's generated one), an instance's `__call__`.

use super::members::find_function;
use super::scopes::params_binding;
use super::{PyModule, PyProject, Target, python_id, text, unknown_type};
use crate::rename::model::{Resolution, SymbolId};
use tree_sitter::Node;

impl PyProject<'_> {
    /// `call(name=…)`: the parameter of the function the call resolves to.
    pub(super) fn keyword(&self, module: &PyModule, argument: Node, name: &str) -> Resolution {
        let call = argument.parent().and_then(|list| list.parent());
        let Some(function) = call
            .filter(|c| c.kind() == "call")
            .and_then(|c| c.child_by_field_name("function"))
        else {
            return Resolution::Unresolved("a keyword argument outside a call".into());
        };
        let target = match function.kind() {
            "attribute" => {
                let (Some(object), Some(attr)) = (
                    function.child_by_field_name("object"),
                    function.child_by_field_name("attribute"),
                ) else {
                    return Resolution::Unresolved("a call".into());
                };
                match self.member(module, object, text(attr, module)) {
                    Resolution::Symbol(SymbolId::Python { module, qual }) => {
                        Target::Function(module, qual)
                    }
                    Resolution::Symbol(other) => {
                        Target::Unknown(format!("`{other}` is not a Python function"))
                    }
                    Resolution::Outside(why) => Target::Outside(why),
                    Resolution::Unresolved(why) => Target::Unknown(why),
                }
            }
            _ => self.expression(module, function, 0),
        };
        let (file, qual) = match target {
            Target::Function(file, qual) => (file, qual),
            Target::Class(file, qual) => match self.class_member(&file, &qual, "__init__", 0) {
                Resolution::Symbol(SymbolId::Python { module, qual }) => (module, qual),
                // A dataclass's (attrs', a NamedTuple's) generated __init__ takes its fields by
                // name: `P(x=1)` is the field `x`.
                _ if self.generates_init(&file, &qual, 0) => {
                    return match self.class_member(&file, &qual, name, 0) {
                        found @ Resolution::Symbol(_) => found,
                        _ => Resolution::Unresolved(format!(
                            "the keyword argument `{name}` of a call of {qual}, which declares no field `{name}`"
                        )),
                    };
                }
                _ => {
                    return Resolution::Unresolved(format!(
                        "the keyword argument `{name}` of a class call whose __init__ is not in the tree"
                    ));
                }
            },
            // Calling an instance calls its class's `__call__`.
            Target::Instance(file, qual, _) => {
                match self.class_member(&file, &qual, "__call__", 0) {
                    Resolution::Symbol(SymbolId::Python { module, qual }) => (module, qual),
                    _ => {
                        return Resolution::Unresolved(format!(
                            "the keyword argument `{name}` of a call of an instance whose __call__ is not in the tree"
                        ));
                    }
                }
            }
            // `dataclasses.replace(p, x=5)` (and `copy.replace`): its keywords are the fields of
            // its first argument's class, whichever that is.
            Target::Outside(_) if text(function, module).rsplit('.').next() == Some("replace") => {
                return Resolution::Unresolved(format!(
                    "the keyword argument `{name}` of replace() names a field of its first argument's class, which lancet cannot tell"
                ));
            }
            Target::Outside(why) => return Resolution::Outside(why),
            Target::Unknown(why) => return Resolution::Unresolved(why),
            Target::Variable(_, variable) => {
                return Resolution::Unresolved(unknown_type(&variable));
            }
            _ => {
                return Resolution::Unresolved(format!(
                    "the keyword argument `{name}` of a call lancet cannot resolve"
                ));
            }
        };
        let Some(m) = self.module(&file) else {
            return Resolution::Unresolved(format!("{file} cannot be read"));
        };
        match find_function(&m, &qual) {
            Some(f) => {
                let mut params = Vec::new();
                if let Some(p) = f.child_by_field_name("parameters") {
                    params_binding(p, &m, name, &mut params);
                }
                if params.is_empty() {
                    Resolution::Unresolved(format!("{qual} has no parameter `{name}`"))
                } else {
                    Resolution::Symbol(python_id(&file, format!("{qual}::{name}")))
                }
            }
            None => Resolution::Unresolved(format!("{qual} is not a function of {file}")),
        }
    }
}
