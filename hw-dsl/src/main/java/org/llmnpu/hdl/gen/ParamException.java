package org.llmnpu.hdl.gen;

/** A bad block name, parameter name or parameter value; the message names it and what is allowed. */
public final class ParamException extends IllegalArgumentException {
  public ParamException(String message) {
    super(message);
  }
}
