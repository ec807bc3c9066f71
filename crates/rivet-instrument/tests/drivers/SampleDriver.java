package drivers;

import java.util.LinkedList;

import sushi.Sample;

/** sushi.Sample with lists of 15 (the hard branch) and 20 elements. */
public class SampleDriver {
    public static void main(String[] args) {
        Sample s = new Sample();
        for (int n : new int[] {15, 20}) {
            LinkedList<Object> list = new LinkedList<>();
            for (int i = 0; i < n; i++) {
                list.add(i);
            }
            System.out.println("sample " + n + " " + s.sample(list, new Object()));
        }
    }
}
