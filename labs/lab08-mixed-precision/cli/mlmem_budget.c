/* mlmem-budget: memory per GPU to train or serve a transformer, from your lab 08 budget functions.
 * Only main() lives here; the parsing and the report are in src/cli.c (mp_cli.h). */
#include <stdio.h>
#include "mp_cli.h"

int main(int argc, char **argv)
{
    static char out[16384], err[2048];
    int status = mp_cli_run(argc, argv, out, sizeof out, err, sizeof err);
    fputs(out, stdout);
    fputs(err, stderr);
    return status;
}
