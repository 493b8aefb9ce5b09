package sample;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** An application whose LockClient would come from baton.uri. */
@SpringBootApplication
public class SampleApplication {}
