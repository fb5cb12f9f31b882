package org.llmnpu.sw.sample;

/**
 * Token sampling settings: {@code temperature == 0} is greedy (argmax); otherwise softmax of
 * logits/temperature, restricted to the {@code topK} most likely tokens ({@code 0} = no limit) and then
 * to the smallest set whose probability reaches {@code topP} ({@code 1} = no limit), renormalized.
 */
public record SamplerConfig(float temperature, int topK, float topP, long seed) {

    public SamplerConfig {
        if (!(temperature >= 0f) || Float.isInfinite(temperature)) {
            throw new IllegalArgumentException("temperature must be >= 0 (0 = greedy), got " + temperature);
        }
        if (topK < 0) {
            throw new IllegalArgumentException("topK must be >= 0 (0 = off), got " + topK);
        }
        if (!(topP > 0f && topP <= 1f)) {
            throw new IllegalArgumentException("topP must be in (0, 1], got " + topP);
        }
    }

    public static SamplerConfig greedy() {
        return new SamplerConfig(0f, 0, 1f, 0L);
    }

    public static SamplerConfig temperature(float t, long seed) {
        return new SamplerConfig(t, 0, 1f, seed);
    }

    public boolean isGreedy() {
        return temperature == 0f;
    }
}
