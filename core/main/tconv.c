/* The tconv executable: everything lives in libtconv, which plugins share. */
int tconv_cli_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return tconv_cli_main(argc, argv);
}
