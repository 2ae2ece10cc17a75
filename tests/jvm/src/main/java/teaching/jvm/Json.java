package teaching.jvm;

import java.util.Collection;
import java.util.Map;

/** The one line of JSON each scenario prints for pytest: maps, lists, strings, numbers, booleans and null. */
final class Json {
    private Json() {
    }

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        append(out, value);
        return out.toString();
    }

    private static void append(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            String sep = "";
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.append(sep);
                appendString(out, String.valueOf(e.getKey()));
                out.append(':');
                append(out, e.getValue());
                sep = ",";
            }
            out.append('}');
        } else if (value instanceof Collection<?> list) {
            out.append('[');
            String sep = "";
            for (Object item : list) {
                out.append(sep);
                append(out, item);
                sep = ",";
            }
            out.append(']');
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else {
            appendString(out, value.toString());
        }
    }

    private static void appendString(StringBuilder out, String s) {
        out.append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
