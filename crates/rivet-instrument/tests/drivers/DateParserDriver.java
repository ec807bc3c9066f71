package drivers;

import strings.DateParser;

/** Valid and invalid dates; every invalid one is rejected by an explicit check. */
public class DateParserDriver {
    public static void main(String[] args) {
        String[] dates = {
            "2000-02-29", "2024-02-29", "2023-02-28", "1900-02-28", "2023-04-30", "2023-01-31",
            "2023-11-15", "2023-06-01", "2023-13-01", "2023-00-10", "2023-02-30", "2023-04-31",
            "2023-01-00", "abc", "2023/01/01", "2023-01/01", null,
        };
        int ok = 0;
        for (String d : dates) {
            try {
                DateParser.parse(d);
                ok++;
            } catch (IllegalArgumentException expected) {
                // rejected
            }
        }
        for (String d : new String[] {"2000-02-29", "2023-02-28", "2023-03-29"}) {
            DateParser.isLeapDay(d);
        }
        System.out.println("dates ok " + ok);
    }
}
