//! JVM opcodes: names, and the shape of each opcode's operands.

/// A JVM opcode byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Opcode(pub u8);

/// How an opcode's operand bytes are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandShape {
    None,
    /// One unsigned byte naming a local variable (widened by `wide`).
    Local,
    Iinc,
    Byte,
    Short,
    NewArray,
    /// One-byte constant-pool index (`ldc`).
    Cp1,
    /// Two-byte constant-pool index.
    Cp2,
    InvokeInterface,
    InvokeDynamic,
    MultiANewArray,
    Jump16,
    Jump32,
    TableSwitch,
    LookupSwitch,
    Wide,
}

macro_rules! opcodes {
    ($($name:ident = $val:expr, $text:expr, $shape:ident;)*) => {
        impl Opcode {
            $(pub const $name: Opcode = Opcode($val);)*

            /// The mnemonic, as javap prints it.
            pub fn name(self) -> &'static str {
                match self.0 {
                    $($val => $text,)*
                    _ => "<invalid>",
                }
            }

            /// The operand layout, or None for an undefined opcode.
            pub fn shape(self) -> Option<OperandShape> {
                match self.0 {
                    $($val => Some(OperandShape::$shape),)*
                    _ => None,
                }
            }
        }
    };
}

opcodes! {
    NOP = 0, "nop", None; ACONST_NULL = 1, "aconst_null", None;
    ICONST_M1 = 2, "iconst_m1", None; ICONST_0 = 3, "iconst_0", None; ICONST_1 = 4, "iconst_1", None;
    ICONST_2 = 5, "iconst_2", None; ICONST_3 = 6, "iconst_3", None; ICONST_4 = 7, "iconst_4", None;
    ICONST_5 = 8, "iconst_5", None; LCONST_0 = 9, "lconst_0", None; LCONST_1 = 10, "lconst_1", None;
    FCONST_0 = 11, "fconst_0", None; FCONST_1 = 12, "fconst_1", None; FCONST_2 = 13, "fconst_2", None;
    DCONST_0 = 14, "dconst_0", None; DCONST_1 = 15, "dconst_1", None;
    BIPUSH = 16, "bipush", Byte; SIPUSH = 17, "sipush", Short;
    LDC = 18, "ldc", Cp1; LDC_W = 19, "ldc_w", Cp2; LDC2_W = 20, "ldc2_w", Cp2;
    ILOAD = 21, "iload", Local; LLOAD = 22, "lload", Local; FLOAD = 23, "fload", Local;
    DLOAD = 24, "dload", Local; ALOAD = 25, "aload", Local;
    ILOAD_0 = 26, "iload_0", None; ILOAD_1 = 27, "iload_1", None; ILOAD_2 = 28, "iload_2", None; ILOAD_3 = 29, "iload_3", None;
    LLOAD_0 = 30, "lload_0", None; LLOAD_1 = 31, "lload_1", None; LLOAD_2 = 32, "lload_2", None; LLOAD_3 = 33, "lload_3", None;
    FLOAD_0 = 34, "fload_0", None; FLOAD_1 = 35, "fload_1", None; FLOAD_2 = 36, "fload_2", None; FLOAD_3 = 37, "fload_3", None;
    DLOAD_0 = 38, "dload_0", None; DLOAD_1 = 39, "dload_1", None; DLOAD_2 = 40, "dload_2", None; DLOAD_3 = 41, "dload_3", None;
    ALOAD_0 = 42, "aload_0", None; ALOAD_1 = 43, "aload_1", None; ALOAD_2 = 44, "aload_2", None; ALOAD_3 = 45, "aload_3", None;
    IALOAD = 46, "iaload", None; LALOAD = 47, "laload", None; FALOAD = 48, "faload", None; DALOAD = 49, "daload", None;
    AALOAD = 50, "aaload", None; BALOAD = 51, "baload", None; CALOAD = 52, "caload", None; SALOAD = 53, "saload", None;
    ISTORE = 54, "istore", Local; LSTORE = 55, "lstore", Local; FSTORE = 56, "fstore", Local;
    DSTORE = 57, "dstore", Local; ASTORE = 58, "astore", Local;
    ISTORE_0 = 59, "istore_0", None; ISTORE_1 = 60, "istore_1", None; ISTORE_2 = 61, "istore_2", None; ISTORE_3 = 62, "istore_3", None;
    LSTORE_0 = 63, "lstore_0", None; LSTORE_1 = 64, "lstore_1", None; LSTORE_2 = 65, "lstore_2", None; LSTORE_3 = 66, "lstore_3", None;
    FSTORE_0 = 67, "fstore_0", None; FSTORE_1 = 68, "fstore_1", None; FSTORE_2 = 69, "fstore_2", None; FSTORE_3 = 70, "fstore_3", None;
    DSTORE_0 = 71, "dstore_0", None; DSTORE_1 = 72, "dstore_1", None; DSTORE_2 = 73, "dstore_2", None; DSTORE_3 = 74, "dstore_3", None;
    ASTORE_0 = 75, "astore_0", None; ASTORE_1 = 76, "astore_1", None; ASTORE_2 = 77, "astore_2", None; ASTORE_3 = 78, "astore_3", None;
    IASTORE = 79, "iastore", None; LASTORE = 80, "lastore", None; FASTORE = 81, "fastore", None; DASTORE = 82, "dastore", None;
    AASTORE = 83, "aastore", None; BASTORE = 84, "bastore", None; CASTORE = 85, "castore", None; SASTORE = 86, "sastore", None;
    POP = 87, "pop", None; POP2 = 88, "pop2", None; DUP = 89, "dup", None; DUP_X1 = 90, "dup_x1", None;
    DUP_X2 = 91, "dup_x2", None; DUP2 = 92, "dup2", None; DUP2_X1 = 93, "dup2_x1", None; DUP2_X2 = 94, "dup2_x2", None;
    SWAP = 95, "swap", None;
    IADD = 96, "iadd", None; LADD = 97, "ladd", None; FADD = 98, "fadd", None; DADD = 99, "dadd", None;
    ISUB = 100, "isub", None; LSUB = 101, "lsub", None; FSUB = 102, "fsub", None; DSUB = 103, "dsub", None;
    IMUL = 104, "imul", None; LMUL = 105, "lmul", None; FMUL = 106, "fmul", None; DMUL = 107, "dmul", None;
    IDIV = 108, "idiv", None; LDIV = 109, "ldiv", None; FDIV = 110, "fdiv", None; DDIV = 111, "ddiv", None;
    IREM = 112, "irem", None; LREM = 113, "lrem", None; FREM = 114, "frem", None; DREM = 115, "drem", None;
    INEG = 116, "ineg", None; LNEG = 117, "lneg", None; FNEG = 118, "fneg", None; DNEG = 119, "dneg", None;
    ISHL = 120, "ishl", None; LSHL = 121, "lshl", None; ISHR = 122, "ishr", None; LSHR = 123, "lshr", None;
    IUSHR = 124, "iushr", None; LUSHR = 125, "lushr", None; IAND = 126, "iand", None; LAND = 127, "land", None;
    IOR = 128, "ior", None; LOR = 129, "lor", None; IXOR = 130, "ixor", None; LXOR = 131, "lxor", None;
    IINC = 132, "iinc", Iinc;
    I2L = 133, "i2l", None; I2F = 134, "i2f", None; I2D = 135, "i2d", None; L2I = 136, "l2i", None;
    L2F = 137, "l2f", None; L2D = 138, "l2d", None; F2I = 139, "f2i", None; F2L = 140, "f2l", None;
    F2D = 141, "f2d", None; D2I = 142, "d2i", None; D2L = 143, "d2l", None; D2F = 144, "d2f", None;
    I2B = 145, "i2b", None; I2C = 146, "i2c", None; I2S = 147, "i2s", None;
    LCMP = 148, "lcmp", None; FCMPL = 149, "fcmpl", None; FCMPG = 150, "fcmpg", None;
    DCMPL = 151, "dcmpl", None; DCMPG = 152, "dcmpg", None;
    IFEQ = 153, "ifeq", Jump16; IFNE = 154, "ifne", Jump16; IFLT = 155, "iflt", Jump16;
    IFGE = 156, "ifge", Jump16; IFGT = 157, "ifgt", Jump16; IFLE = 158, "ifle", Jump16;
    IF_ICMPEQ = 159, "if_icmpeq", Jump16; IF_ICMPNE = 160, "if_icmpne", Jump16; IF_ICMPLT = 161, "if_icmplt", Jump16;
    IF_ICMPGE = 162, "if_icmpge", Jump16; IF_ICMPGT = 163, "if_icmpgt", Jump16; IF_ICMPLE = 164, "if_icmple", Jump16;
    IF_ACMPEQ = 165, "if_acmpeq", Jump16; IF_ACMPNE = 166, "if_acmpne", Jump16;
    GOTO = 167, "goto", Jump16; JSR = 168, "jsr", Jump16; RET = 169, "ret", Local;
    TABLESWITCH = 170, "tableswitch", TableSwitch; LOOKUPSWITCH = 171, "lookupswitch", LookupSwitch;
    IRETURN = 172, "ireturn", None; LRETURN = 173, "lreturn", None; FRETURN = 174, "freturn", None;
    DRETURN = 175, "dreturn", None; ARETURN = 176, "areturn", None; RETURN = 177, "return", None;
    GETSTATIC = 178, "getstatic", Cp2; PUTSTATIC = 179, "putstatic", Cp2;
    GETFIELD = 180, "getfield", Cp2; PUTFIELD = 181, "putfield", Cp2;
    INVOKEVIRTUAL = 182, "invokevirtual", Cp2; INVOKESPECIAL = 183, "invokespecial", Cp2;
    INVOKESTATIC = 184, "invokestatic", Cp2; INVOKEINTERFACE = 185, "invokeinterface", InvokeInterface;
    INVOKEDYNAMIC = 186, "invokedynamic", InvokeDynamic;
    NEW = 187, "new", Cp2; NEWARRAY = 188, "newarray", NewArray; ANEWARRAY = 189, "anewarray", Cp2;
    ARRAYLENGTH = 190, "arraylength", None; ATHROW = 191, "athrow", None;
    CHECKCAST = 192, "checkcast", Cp2; INSTANCEOF = 193, "instanceof", Cp2;
    MONITORENTER = 194, "monitorenter", None; MONITOREXIT = 195, "monitorexit", None;
    WIDE = 196, "wide", Wide; MULTIANEWARRAY = 197, "multianewarray", MultiANewArray;
    IFNULL = 198, "ifnull", Jump16; IFNONNULL = 199, "ifnonnull", Jump16;
    GOTO_W = 200, "goto_w", Jump32; JSR_W = 201, "jsr_w", Jump32;
}

impl Opcode {
    /// A two-way conditional jump (`if*`).
    pub fn is_conditional_jump(self) -> bool {
        (Self::IFEQ.0..=Self::IF_ACMPNE.0).contains(&self.0)
            || self == Self::IFNULL
            || self == Self::IFNONNULL
    }

    /// `goto`, `goto_w`.
    pub fn is_goto(self) -> bool {
        self == Self::GOTO || self == Self::GOTO_W
    }

    pub fn is_switch(self) -> bool {
        self == Self::TABLESWITCH || self == Self::LOOKUPSWITCH
    }

    /// `*return`.
    pub fn is_return(self) -> bool {
        (Self::IRETURN.0..=Self::RETURN.0).contains(&self.0)
    }

    /// Control never falls through to the next instruction.
    pub fn ends_block(self) -> bool {
        self.is_goto()
            || self.is_switch()
            || self.is_return()
            || self == Self::ATHROW
            || self == Self::RET
    }

    /// The conditional jump with the opposite condition.
    pub fn negated(self) -> Option<Opcode> {
        if self == Self::IFNULL {
            Some(Self::IFNONNULL)
        } else if self == Self::IFNONNULL {
            Some(Self::IFNULL)
        } else if self.is_conditional_jump() {
            // The if* opcodes come in adjacent (cond, !cond) pairs starting at IFEQ (odd).
            Some(Opcode(if self.0 % 2 == 1 {
                self.0 + 1
            } else {
                self.0 - 1
            }))
        } else {
            None
        }
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
