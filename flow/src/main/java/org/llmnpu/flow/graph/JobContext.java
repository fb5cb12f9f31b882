package org.llmnpu.flow.graph;

/** What a running job sees: its dependencies' results and a log that names it. */
public interface JobContext {
  /**
   * The result of {@code dep}, which must be one of the running job's declared dependencies (anything else is an
   * {@link IllegalStateException} naming both jobs: an undeclared input would escape the job's key).
   */
  <U> U get(Job<U> dep);

  /** A line of the job's own output, printed prefixed with the job's id. */
  void log(String line);
}
