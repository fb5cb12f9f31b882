package org.llmnpu.hdl;

/** Base class of every hardware module (being written; see hw-dsl/README.md). */
public abstract class Module {
}
