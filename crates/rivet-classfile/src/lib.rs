//! Rivet's Java class-file model: parse, write (byte-exact round trip) and edit class files
//! of major versions 45 to 69 (Java 1.1 to 25).

pub mod attribute;
pub mod bytes;
pub mod class;
pub mod constant_pool;
pub mod descriptor;
pub mod edit;
pub mod error;
pub mod insn;
pub mod name;
pub mod opcode;
pub mod stackmap;

pub use attribute::{
    Attribute, AttributeBody, BootstrapMethod, Code, ExceptionHandler, InnerClass, LineNumber,
    LocalVariable, RecordComponent,
};
pub use class::{AccessFlags, ClassFile, Member, MAX_MAJOR_VERSION, MIN_MAJOR_VERSION};
pub use constant_pool::{Constant, ConstantPool, CpIndex, MemberRef, Utf8Const};
pub use descriptor::{FieldType, MethodDescriptor};
pub use edit::{CodeEditor, Frame, Item, Label};
pub use error::{ParseError, ParseErrorKind, WriteError};
pub use insn::{Instruction, Operand};
pub use name::ClassName;
pub use opcode::Opcode;
pub use stackmap::{StackMapFrame, VerificationType};
