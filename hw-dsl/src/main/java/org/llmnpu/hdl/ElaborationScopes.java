package org.llmnpu.hdl;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.llmnpu.hdl.ir.Stmt;

/**
 * Where an {@link HwModule}'s constructor is building at the moment: the statement block new statements go into
 * (the module body, or the branch of the enclosing {@code when}/{@code switchOn}), the enclosing
 * {@code section(...)} names that prefix explicit names, and the clock domain new registers and memories belong to
 * (the default domain, a {@code withDomain} domain or a gated bank's). Each is a stack: entered for the duration of
 * a body, left when it returns or throws.
 */
final class ElaborationScopes {
  private final Deque<List<Stmt>> blocks = new ArrayDeque<>();
  private final Deque<String> sections = new ArrayDeque<>();
  private final Deque<ClockDomain> domains = new ArrayDeque<>();

  /** Scopes that start in the module's {@code body} and its default domain. */
  ElaborationScopes(List<Stmt> body, ClockDomain defaultDomain) {
    blocks.push(body);
    domains.push(defaultDomain);
  }

  /** The statement block new statements go into. */
  List<Stmt> block() {
    return blocks.peek();
  }

  /** The clock domain new registers and memories belong to. */
  ClockDomain domain() {
    return domains.peek();
  }

  /** Runs {@code body} with its statements going into {@code block}. */
  void inBlock(List<Stmt> block, Runnable body) {
    within(blocks, block, body);
  }

  /** Runs {@code body} inside the section {@code name} (explicit names prefixed with {@code name_}). */
  void inSection(String name, Runnable body) {
    within(sections, name, body);
  }

  /** Runs {@code body} with its registers and memories in {@code domain}. */
  void inDomain(ClockDomain domain, Runnable body) {
    within(domains, domain, body);
  }

  /** Runs {@code body} with {@code top} on {@code stack}, popped again when it returns or throws. */
  private static <T> void within(Deque<T> stack, T top, Runnable body) {
    stack.push(top);
    try {
      body.run();
    } finally {
      stack.pop();
    }
  }

  /** {@code name} prefixed by the enclosing sections, outermost first: {@code outer_inner_name}. */
  String scopedName(String name) {
    StringBuilder sb = new StringBuilder();
    sections.descendingIterator().forEachRemaining(s -> sb.append(s).append('_'));
    return sb.append(name).toString();
  }
}
