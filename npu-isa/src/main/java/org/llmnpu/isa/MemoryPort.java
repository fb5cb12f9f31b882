package org.llmnpu.isa;

/**
 * The external memory's port as {@link CycleModel} and its {@link CommandFetcher} share it: the first cycle
 * {@code free} in which the memory accepts another beat, and the cycles the controller and the fetcher waited for
 * it ({@code memStallCycles}).
 */
final class MemoryPort {
  long free;
  long stalls;
}
