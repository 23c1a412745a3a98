//! What may reach a member by its name from outside the tree, as data: a base, a decorator, an
//! iteration, an augmented interface. A rename's and a signature change's refusals name them
//! alike; their words are `render/reach.rs`'s.

/// What may reach a member by its name where lancet cannot see, so that a renamed member would
/// stop overriding it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum OutsideReach {
    /// A base outside the tree (or one lancet does not resolve) up the member's class's
    /// hierarchy, or up a subclass's, as written.
    Base(String),
    /// The subclasses of this class of the tree, which lancet cannot tell: a base it does not
    /// resolve may be the class.
    UntoldSubclasses(String),
    /// A TypeScript declaration file (`.d.ts`) of the tree declares the member: it describes
    /// code elsewhere, which calls it by that name.
    DeclarationFile(String),
    /// A decorator from outside the tree on a class of the member's hierarchy, as written
    /// (`Component({…})`): the framework may call the member by name (Angular's `ngOnInit`).
    Decorator(String),
    /// A class of the member's hierarchy is an iterator (its name): `for … of` and spreads
    /// call its `next` (`return`, `throw`) by name.
    Iterator(String),
    /// The member's interface (its name) augments a type outside the tree: code reaches the
    /// member through that type (`window.appName`).
    Augmentation {
        /// The interface's name.
        interface: String,
        /// What it augments.
        augmented: Augmented,
    },
}

/// What an interface of the tree augments, for a member code reaches through that type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Augmented {
    /// The global of its name: `declare global { interface Window { … } }`.
    Global,
    /// The type of its name of a module, as written: `declare module "express" { … }`.
    Module(String),
    /// The global of its name, declared by a file without imports or exports (a script), whose
    /// declarations are global and merge with the library's.
    Script,
}
