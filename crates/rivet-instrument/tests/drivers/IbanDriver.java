package drivers;

import strings.Iban;

/** Valid IBANs, wrong check digits, wrong lengths, letters and digits in the wrong places. */
public class IbanDriver {
    public static void main(String[] args) {
        String[] ibans = {
            "DE89 3704 0044 0532 0130 00", "GB82 WEST 1234 5698 7654 32", "GB82 WEST 1234 5698 7654 33",
            "DE89 3704 0044 0532 0130", "de89 3704 0044 0532 0130 00", "D189 3704 0044 0532 0130 00",
            "DEX9 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 0!", "SHORT",
            "XX00 0000 0000 0000 0000 0000 0000 0000 0000", "1E89 3704 0044 0532 0130 00",
        };
        int valid = 0;
        for (String s : ibans) {
            if (new Iban(s).isValid()) {
                valid++;
            }
        }
        try {
            new Iban(null);
        } catch (IllegalArgumentException expected) {
            // null
        }
        System.out.println("ibans valid " + valid);
    }
}
