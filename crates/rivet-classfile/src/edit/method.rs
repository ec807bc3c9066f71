//! `ClassFile::edit_code`: runs a code editor over one method with what it needs from the
//! class (entry frame, StackMapTable name, method name for errors).

use super::CodeEditor;
use crate::class::ClassFile;
use crate::constant_pool::ConstantPool;
use crate::descriptor::{FieldType, MethodDescriptor};
use crate::error::WriteError;
use crate::stackmap::VerificationType;
use crate::ClassName;

impl ClassFile {
    /// Edits the code of `self.methods[method]`: `edit` gets an editor over its Code and the
    /// constant pool (to add the constants inserted code uses). The editor is given the
    /// method's entry frame and, for classes of major 50+, the name to create a StackMapTable
    /// with; the new code replaces the old. Errors name the method.
    pub fn edit_code<F>(&mut self, method: usize, edit: F) -> Result<(), WriteError>
    where
        F: FnOnce(&mut CodeEditor, &mut ConstantPool) -> Result<(), WriteError>,
    {
        let label = self.method_label(method);
        let bad = |reason: &str| WriteError::BadEdit {
            method: label.clone(),
            reason: reason.to_string(),
        };
        let m = self
            .methods
            .get(method)
            .ok_or_else(|| bad("edit_code: no such method"))?;
        let code = m
            .code()
            .ok_or_else(|| bad("edit_code: the method has no code"))?;
        let mut editor = CodeEditor::new(code);
        edit(&mut editor, &mut self.constant_pool)?;
        if !editor.is_modified() {
            return Ok(());
        }
        let locals = self.initial_locals(method).map_err(|e| bad(&e))?;
        editor.set_initial_locals(locals);
        if self.major_version >= 50 && editor.original().stack_map().is_none() {
            editor.set_stack_map_name(self.constant_pool.intern_utf8("StackMapTable"));
        }
        let new = editor.finish(&label)?;
        if let Some(c) = self.methods.get_mut(method).and_then(|m| m.code_mut()) {
            *c = new;
        }
        Ok(())
    }

    /// `pkg.Class.name(descriptor)`, for error messages.
    fn method_label(&self, method: usize) -> String {
        let class = ClassName::from_internal(self.name().unwrap_or("?"));
        match self.methods.get(method) {
            Some(m) => format!(
                "{class}.{}{}",
                self.member_name(m).unwrap_or("?"),
                self.member_descriptor(m).unwrap_or("")
            ),
            None => format!("{class}.<method #{method}>"),
        }
    }

    /// The locals of a method's implicit entry frame (JVMS 4.10.1.6), adding Class constants
    /// for reference parameter types as needed.
    fn initial_locals(&mut self, method: usize) -> Result<Vec<VerificationType>, String> {
        let m = self.methods.get(method).ok_or("no such method")?;
        let name = self.member_name(m).map_err(|e| e.to_string())?.to_string();
        let desc = self.member_descriptor(m).map_err(|e| e.to_string())?;
        let desc = MethodDescriptor::parse(desc).map_err(|e| e.to_string())?;
        let is_static = m.access_flags.is_static();
        let this_class = self.this_class;
        let is_object = self.name().ok() == Some("java/lang/Object");
        let mut out = Vec::with_capacity(desc.params.len() + 1);
        if !is_static {
            out.push(if name == "<init>" && !is_object {
                VerificationType::UninitializedThis
            } else {
                VerificationType::Object(this_class)
            });
        }
        for p in &desc.params {
            out.push(match p {
                FieldType::Boolean
                | FieldType::Byte
                | FieldType::Char
                | FieldType::Short
                | FieldType::Int => VerificationType::Integer,
                FieldType::Float => VerificationType::Float,
                FieldType::Long => VerificationType::Long,
                FieldType::Double => VerificationType::Double,
                FieldType::Object(n) => {
                    VerificationType::Object(self.constant_pool.intern_class(n))
                }
                FieldType::Array(_) => {
                    VerificationType::Object(self.constant_pool.intern_class(&p.to_string()))
                }
            });
        }
        Ok(out)
    }
}
